python3 run.py  or 
mpirun -n 2 --allow-run-as-root python3 run.py
