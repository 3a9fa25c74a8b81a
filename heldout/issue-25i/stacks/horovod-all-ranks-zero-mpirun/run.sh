mpirun --bind-to none -x LD_LIBRARY_PATH=$(echo $LD_LIBRARY_PATH) -x PATH=$(echo $PATH)\
 -x PYTHONPATH=$(echo PYTHONPATH) -x HOROVOD_MPI_THREADS_DISABLE=1  -np 8\
 -x NCCL_DEBUG=INFO $(which python) tester.py 
