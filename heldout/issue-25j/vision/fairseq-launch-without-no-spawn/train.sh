MASTER_IP="127.0.0.1"
MASTER_PORT=1234
TOTAL_NODES_NUM=1
NODE_RANK=$1

DATA_DIR=/mnt/distributed/bin

arch=transformer_lm
seed=1
lr=0.0007
decoder_layers=3
decoder_embed_dim=1024
decoder_ffn_embed_dim=4096
decoder_attention_heads=16
dropout=0.0
criterion=cross_entropy
label_smoothing=0.0

SAVE_DIR=/mnt/distributed/checkpoints/${arch}/1blm-${decoder_layers}L-${decoder_embed_dim}ED-${decoder_ffn_embed_dim}FD-${decoder_attention_heads}H-shared-lr${lr}-SEED${seed}-DROPOUT${dropout}-CRITERION${criterion}

RESTORE_FILE=/mnt/distributed/restore-checkpoint/checkpoint23.pt

RESTORE_FILE=/mnt/distributed-xiangxin-${SERVER_PORT}/sampling-distill/restore-checkpoint/checkpoint23.pt
CUDA_VISIBLE_DEVICES=0,1,2,3 python -m torch.distributed.launch --nproc_per_node=4 \
    --nnodes=${TOTAL_NODES_NUM} --node_rank=${NODE_RANK} --master_addr=${MASTER_IP} \
    --master_port=${MASTER_PORT} \
    $(which fairseq-train) ${DATA_DIR} \
