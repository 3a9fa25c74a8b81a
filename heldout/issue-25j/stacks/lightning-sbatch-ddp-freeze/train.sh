#!/bin/bash

#SBATCH --time=00:010:00   # walltime
#SBATCH --ntasks-per-node=4 # number of processor cores (i.e. tasks)
#SBATCH --cpus-per-task=4
#SBATCH --gpus=8
#SBATCH --mem-per-cpu=1536M   # memory per CPU core
#SBATCH --nodes=2
#SBATCH -C pascal
#SBATCH --qos=test


# Set the max number of threads to use for programs using OpenMP. Should be <= ppn. Does nothing if the program doesn't use OpenMP.
export OMP_NUM_THREADS=$SLURM_CPUS_ON_NODE

# LOAD MODULES, INSERT CODE, AND RUN YOUR PROGRAMS HERE
module load python/3.8
module load cuda/10.1

source ~/venv/bin/activate

cd ~/test/

python test.py
