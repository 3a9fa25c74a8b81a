device = torch.device("cuda:{}".format(local_rank))
model.to(device)
model.load_state_dict(torch.load(path, map_location=device))
DistributedDataParallel(model, device_ids=[local_rank])

...
optimizer.step() <-- OOM here
...
