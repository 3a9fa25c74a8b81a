vllm serve <model> --tensor-parallel-size 2 --max-num-seqs 20 \
  --enable-chunked-prefill \
  --additional-config '{"enable_flashcomm1": true}'
