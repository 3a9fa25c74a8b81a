import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl

from torch.optim import SparseAdam
from torch.utils.data.dataloader import DataLoader
from torch.utils.data import Dataset

class DummyDataset(Dataset):
    def __getitem__(self, i):
        return torch.zeros(5, dtype=torch.long)
    
    def __len__(self):
        return 10

class SparseModel(pl.LightningModule):

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.embeddings = nn.Embedding(10, 10, sparse=True)

    def forward(self, batch):
        return self.embeddings(batch)
