pip install mpi4py>=4.0.0
