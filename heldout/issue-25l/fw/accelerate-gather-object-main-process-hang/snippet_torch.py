dist.gather_object(
  txt_out_across_devices if dist.get_rank() == 0 else None,
  txt_out,
  dst=0
)
