import os
from rfdetr import RFDETRMedium

model = RFDETRMedium()

model.train(
    dataset_dir="/home/dohyeon/Datasets/dataset_rfdetr_576",
    epochs=1,
    batch_size=4,
    grad_accum_steps=2,  # 2GPU × grad_accum_steps=2 × batch_size=4 = effective 16
    output_dir="output/strategy1",
    progress_bar="tqdm",
    devices=2,
    # strategy="ddp_find_unused_parameters_true",  # NOT set → triggers error
    num_workers=16,
    pin_memory=True,
    resolution=576,
    resume=None,
    checkpoint_interval=1,
    use_ema=True,
    tensorboard=True,
    seed=42,
)
