optim_state = FSDP.full_optim_state_dict(model, optimizer)
    if rank==0:
        torch.save(optim_state, opt_save_full_path)
