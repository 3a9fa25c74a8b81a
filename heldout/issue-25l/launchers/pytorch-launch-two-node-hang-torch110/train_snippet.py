env_dist = os.environ
print('env MASTER_ADDR={}'.format(env_dist['MASTER_ADDR']))
print('env MASTER_PORT={}'.format(env_dist['MASTER_PORT']))
print('env WORLD_SIZE={}'.format(env_dist['WORLD_SIZE']))
print('env RANK={}'.format(env_dist['RANK']))
print('env LOCAL_RANK={}'.format(env_dist['LOCAL_RANK']))

args.local_rank=int(env_dist['LOCAL_RANK'])

def main():
    dist.init_process_group("nccl", init_method='env://')  
    .......
if __name__ == "__main__":
    main()
