#! /bin/bash
set -e
export NCCL_IB_DISABLE=1
export NCCL_SOCKET_IFNAME=eth1
# Change for multinode config
logname=$(date +'%Y-%m-%d_%H:%M:%S')
if [ -n "$1" ]; then
  logname=$1
fi

MP_SIZE=4
NUM_WORKERS=2
NUM_GPUS_PER_WORKER=4
HIDDEN_SIZE=3072
NUM_ATTN_HEADS=24
NUM_LAYERS=40
BATCHSIZE=8
DATA_PATH=$(cat data_augment.txt)
VOCAB_PATH=vocab.txt
MERGE_PATH=none.txt
CHECKPOINT_PATH=./checkpoints/${logname}

script_path=$(realpath $0)
script_dir=$(dirname $script_path)
config_json="$script_dir/zqy.json"
#config_json="wyp.json"
# offloads to NVMe
#config_json="$script_dir/ds_zero_stage_infinity_config.json"

#ZeRO Configs
stage=3
reduce_scatter=true
contigious_gradients=true
rbs=50000000
agbs=5000000000

#Activation Checkpointing and Contigious Memory
chkp_layers=1
PA=true
PA_CPU=true
CC=true
SYNCHRONIZE=true
PROFILE=false

# TiledLinear splits, 0 is disable
TILED_LINEAR="true"
TILE_DIM=1
