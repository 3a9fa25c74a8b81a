# Start ray on head and worker nodes
ray start ...

...

# vllm serve on head node
vllm serve "${HF_HOME}/hub/models--${SNAPSHOT_DIR}/snapshots/$SNAPSHOT" \
        --tensor-parallel-size=$tensor_parallel \
        --distributed-executor-backend=ray \
        --disable-custom-all-reduce \
        2>&1 | tee "${TMPDIR}api_server.log" &
