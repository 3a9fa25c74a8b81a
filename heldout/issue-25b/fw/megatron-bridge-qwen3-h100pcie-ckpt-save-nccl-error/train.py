from megatron.bridge import AutoBridge
from megatron.bridge.recipes.qwen.qwen3_8b import pretrain_config
from megatron.bridge.training.config import ConfigContainer
from megatron.bridge.training.gpt_step import forward_step
from megatron.bridge.training.pretrain import pretrain

bridge = AutoBridge.from_hf_pretrained("Qwen/Qwen3-8B")
model_provider = bridge.to_megatron_provider()
model_provider.tensor_model_parallel_size=4
model_provider.pipeline_model_parallel_size=1
model_provider.finalize()
#megatron_model = model_provider.provide_distributed_model(wrap_with_ddp=False)

# Get the base ConfigContainer from the recipe
cfg: ConfigContainer = pretrain_config()

cfg.model= model_provider
# Apply overrides. Note the hierarchical structure
cfg.train.train_iters=20
cfg.train.global_batch_size=8
