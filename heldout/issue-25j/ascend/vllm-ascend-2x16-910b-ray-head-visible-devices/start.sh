1. on the head node 
```sh
export VLLM_HOST_IP=$POD_IP
export HCCL_IF_IP=$POD_IP
export HCCL_CONNECT_TIMEOUT=120
export GLOO_SOCKET_IFNAME=bond0
export TP_SOCKET_IFNAME=bond0
export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
ray start --head --num-gpus=16 --port=6379
```
2. on the worker node
```sh
export VLLM_HOST_IP=$POD_IP
export HCCL_IF_IP=$POD_IP
export HCCL_CONNECT_TIMEOUT=120
export GLOO_SOCKET_IFNAME=bond0
export TP_SOCKET_IFNAME=bond0
export RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES=1 
