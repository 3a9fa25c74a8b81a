#!/bin/bash

mkdir -p mnist_convnet_model
CUDA_VISIBLE_DEVICES="0,1"
# tensorflow_mnist_estimator.py is horovod official example
nohup horovodrun -np 2 -H localhost:2 python -u ./tensorflow_mnist_estimator.py \
1>./mnist_convnet_model/1.log \
2>./mnist_convnet_model/2.log &

sleep 3

tail -f ./mnist_convnet_model/2.log
