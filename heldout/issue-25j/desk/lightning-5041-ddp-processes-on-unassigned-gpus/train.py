trainer = pl.Trainer(gpus=[2,3], accelerator='ddp')
trainer.fit(lightning_model)
