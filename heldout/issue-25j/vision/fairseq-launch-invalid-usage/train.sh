python -m torch.distributed.launch --nproc_per_node=${NPROC_PER_NODE} \
    --nnodes=${NNODE} --node_rank=${NODE_RANK} --master_addr=${MASTER_ADDR} \
    --master_port=${MASTER_PORT} \
/opt/conda/bin/fairseq-train ... --distributed-no-spawn --ddp-backend no_c10d
