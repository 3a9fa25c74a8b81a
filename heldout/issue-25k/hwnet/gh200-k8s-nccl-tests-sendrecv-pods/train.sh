mpirun -np 2 -host localhost,192.168.232.219 --allow-run-as-root $PWD/build/sendrecv_perf -b 8 -e 1024M -f 2 -g 1
