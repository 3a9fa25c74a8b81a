import os
os.environ["TORCH_CPP_LOG_LEVEL"] = "INFO"
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
import torch
import torch.distributed as dist

def main():
    rank = int(os.environ["RANK"]) if "RANK" in os.environ else 0
    world_size = int(
        os.environ["WORLD_SIZE"]) if "WORLD_SIZE" in os.environ else 1
    dist.init_process_group("gloo", rank=rank, world_size=world_size,init_method="tcp://localhost:35980")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
