convert_ckpts:
python convert_checkpoint.py --model_version v2_13b --model_dir /data/checkpoint/BaiChuan2-13B/ --dtype float16 --output_dir /home/TensorRT-LLM/data/BaiChuan2-13B/trt_ckpts/fp16/2-gpu --world_size2 --tp_size 2
build:
trtllm-build --checkpoint_dir /home/TensorRT-LLM/data/BaiChuan2-13B/trt_ckpts/fp16/2-gpu-tp2/ --output_dir /home/TensorRT-LLM/data/BaiChuan2-13B/trt_engines/fp16/2-gpu-tp2/ --gemm_plugin float16 --max_batch_size=32 --max_input_len=2048 --max_output_len=2048 --tp_size 2
custom run:
CUDA_VISIBLE_DEVICES=0,1 mpirun -n 2 python3 /home/TensorRT-LLM/examples/run_benchmark.py --engine_dir ./BaiChuan2-13B/trt_engines/fp16/2-gpu-tp2/ --tokenizer_dir /data/checkpoint/BaiChuan2-13B/ --max_output_len 1024 --single_input_tokenid_length 2048 --benchmark_model_name BaiChuan2-13B --input_file ./BaiChuan2-13B/speed_data/test/input_ids_bsz32_2048.csv --run_profiling
