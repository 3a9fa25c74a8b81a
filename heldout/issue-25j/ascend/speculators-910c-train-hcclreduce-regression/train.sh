echo "$(date '+%Y-%m-%d %H:%M:%S,%3N') Training starts."
export PYTORCH_NPU_ALLOC_CONF=max_split_size_mb:64
ASCEND_RT_VISIBLE_DEVICES="$TRAIN_NPUS" torchrun \
    --standalone --nproc_per_node "$NUM_TRAIN_NPUS" \
    /root/speculators/scripts/train.py \
    --verifier-name-or-path "$MODEL" \
    --data-path "${OUTPUT_DIR}/data" \
    --train-data-ratio 0.9999 \
    --vllm-endpoint "http://localhost:${VLLM_PORT}/v1" \
    --save-path "$OUTPUT_DIR/checkpoints" \
    --log-dir "$OUTPUT_DIR/logs" \
    --epochs "$EPOCHS" \
    --lr "$LR" \
    --optimizer adamw \
    --loss-fn "$LOSS_FN" \
    --total-seq-len "$SEQ_LENGTH" \
    --speculator-type "$SPECULATOR_TYPE" \
    --block-size "$BLOCK_SIZE" \
    --max-anchors "$MAX_ANCHORS" \
    --draft-arch qwen3 \
    --num-layers "$NUM_LAYERS" \
    --target-layer-ids $TARGET_LAYER_IDS \
