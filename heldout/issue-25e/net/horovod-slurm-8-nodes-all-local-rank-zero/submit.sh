#!/bin/bash -l
#
#SBATCH --job-name=dist_google_benchmark
#SBATCH --time=00:30:00
#SBATCH --nodes=8
#SBATCH --constraint=gpu

# load virtualenv
export WORKON_HOME=~/virtualenv3
source $WORKON_HOME/pytorch-horovod/bin/activate

srun -N 8 -n 8 python test.py

deactivate

