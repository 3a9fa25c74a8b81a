source /root/miniconda3/bin/activate delius
export LD_LIBRARY_PATH=/usr/local/Ascend/driver/:/usr/local/Ascend/driver/lib64/common/:/usr/local/Ascend/driver/lib64/driver/:${LD_LIBRARY_PATH}
source /usr/local/Ascend/ascend-toolkit/set_env.sh

model_path=/models/Qwen2-VL-72B-Instruct
tensor_parallel=4
model_name=$(basename $(realpath $model_path))
cache_max_count=0.8

cmd="python -m lmdeploy serve api_server $model_path\
  --backend pytorch\
  --device ascend\
  --dtype 'bfloat16'\
  --tp $tensor_parallel\
  --cache-max-entry-count $cache_max_count\
  --model-name $model_name\
