distributed_state = Accelerator()
if distributed_state.is_main_process:
  print(gather_object(txt_out)[0])
  print(gather_object(txt_out)[1])
