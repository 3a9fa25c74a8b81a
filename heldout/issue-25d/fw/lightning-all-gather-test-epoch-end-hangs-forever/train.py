import pytorch_lightning as thl
import torch as th
from torch.utils.data import Dataset, DataLoader, TensorDataset
import torch.nn.functional as F


class DummyModel(thl.LightningModule):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.fc = th.nn.Linear(dim_in, dim_out)

    def forward(self, x):
        return self.fc(x)

    def configure_optimizers(self):
        return th.optim.Adam(self.parameters())

    def training_step(self, batch, idx):
        x, y = batch
        logits = self.forward(x)
        return F.binary_cross_entropy_with_logits(logits, y)

    def test_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self.fc(x)
        return  y_hat

    def test_epoch_end(self, outputs):
        if self.trainer.is_global_zero:
            outputs = self.all_gather(outputs)
            print(f"after gather, len = {len(outputs)}")
            return outputs
