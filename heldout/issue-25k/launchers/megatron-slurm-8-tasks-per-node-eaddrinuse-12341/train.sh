# Runs the "175B" parameter model
#SBATCH -N 16 
#SBATCH --exclusive
#SBATCH --ntasks-per-node=8  
#SBATCH --gpus-per-node=8
#SBATCH --job-name "test-megatron"
##SBATCH --mpi=none
##SBATCH --time=40:00
echo "Running on hosts: $(echo $(scontrol show hostname))"
echo "$DATESTRING"
#export CUDA_DEVICE_MAX_CONNECTIONS=8

# Multi-node configuration
export GPUS_PER_NODE=8
export NUM_NODES=16
export NODE_RANK=${SLURM_PROCID}
export MASTER_ADDR=$(scontrol show hostname $SLURM_NODELIST | head -n1)
export MASTER_PORT=12341
export WORLD_SIZE=$(($GPUS_PER_NODE * $NUM_NODES))

CONT='pytorch_24.12_py3.sqsh'
MOUNT='/Megatron-LM'

export NCCL_DEBUG=INFO
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth0
export NCCL_IB_GID_INDEX=3
export NCCL_DEBUG_SUBSYS=ALL
export OMP_NUM_THREADS=8
