torchx run --scheduler kubernetes dist.ddp -j 8x1 --script cifar_dist.py
