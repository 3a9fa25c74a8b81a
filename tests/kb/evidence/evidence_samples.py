"""Small evidence samples built from the real format strings (see shared log-formats reference)."""

NCCL_RANK1 = """\
node-a:4712:4712 [1] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>
node-a:4712:4712 [1] NCCL INFO NCCL version 2.21.5+cuda12.4
node-a:4712:4790 [1] NCCL INFO ncclCommInitRank comm 0x5581c0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 8000 commId 0x9c1f - Init START
node-a:4712:4790 [1] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.
node-a:4712:4790 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via SHM/direct/direct
node-a:4712:4790 [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via SHM/direct/direct
node-a:4712:4712 [1] NCCL INFO AllReduce: opCount 1a sendbuff 0x7f01 recvbuff 0x7f01 count 64 datatype 7 op 0 root 0 comm 0x5581c0 [nranks=2] stream 0x55f1
node-a:4712:4712 [1] NCCL INFO Broadcast: opCount 1b sendbuff 0x7f02 recvbuff 0x7f02 count 80 datatype 9 op 0 root 0 comm 0x5581c0 [nranks=2] stream 0x55f1

[2025-03-12 10:01:02] node-a:4712:4801 [1] misc/socket.cc:58 (socketProgress) NCCL WARN socketProgress: Connection closed by remote peer node-b<41832>
"""

# NCCL lines from two processes in one file; the WARN of pid 4711 comes before its init line.
NCCL_TWO_PIDS = """\
node-a:4711:4801 [0] misc/socket.cc:58 NCCL WARN early warning before init
node-a:4711:4790 [0] NCCL INFO ncclCommInitRank comm 0x55aa rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 7000 commId 0x9c1f - Init START
node-a:4712:4791 [1] NCCL INFO ncclCommInitRank comm 0x55bb rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 8000 commId 0x9c1f - Init START
node-a:4712:4791 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/IB/0/GDRDMA
node-a:4712:4801 [1] misc/socket.cc:58 NCCL WARN late warning
"""

WATCHDOG_RANK3 = """\
[rank3]:[E709 17:05:38.162555850 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=78, OpType=BROADCAST, NumelIn=80, NumelOut=80, Timeout(ms)=600000) ran for 600096 milliseconds before timing out.
[rank3]:[E709 17:05:38.162814866 ProcessGroupNCCL.cpp:2271] [PG ID 0 PG GUID 0(default_pg) Rank 3]  failure detected by watchdog at work sequence id: 78 PG status: last enqueued work: 79, last completed work: 77
"""

# Two ranks interleaved in one console log (torchrun --tee with [rankN]: prefixes).
INTERLEAVED = """\
[rank0]:[I709 17:00:00.000000001 ProcessGroupWrapper.cpp:565] [Rank 0] Running collective: CollectiveFingerPrint(SequenceNumber=11, OpType=ALLREDUCE, TensorShape=[4], TensorDtypes=Float, TensorDeviceTypes=cuda)
[rank1]:[I709 17:00:00.000000002 ProcessGroupWrapper.cpp:565] [Rank 1] Running collective: CollectiveFingerPrint(SequenceNumber=11, OpType=ALLREDUCE, TensorShape=[4], TensorDtypes=Float, TensorDeviceTypes=cuda)
[rank0]: Epoch 1:  40%|####      | 40/100 [00:20<00:30,  2.00it/s]
[rank1]: Epoch 1:  39%|###9      | 39/100 [00:20<00:31,  1.95it/s]
[rank0]:[I709 17:00:01.000000001 ProcessGroupWrapper.cpp:565] [Rank 0] Running collective: CollectiveFingerPrint(SequenceNumber=12, OpType=BROADCAST, TensorShape=[2, 3], TensorDtypes=Long, TensorDeviceTypes=cuda)
[rank1]:[I709 17:00:01.000000002 ProcessGroupWrapper.cpp:565] [Rank 1] Running collective: CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE, TensorShape=[4], TensorDtypes=Float, TensorDeviceTypes=cuda)
[rank1]: Traceback (most recent call last):
[rank1]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE, TensorShape=[4], TensorDtypes=Float, TensorDeviceTypes=cuda), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=12, OpType=BROADCAST, TensorShape=[2, 3], TensorDtypes=Long, TensorDeviceTypes=cuda).Collectives differ in the following aspects:   Op type: ALLREDUCEvs BROADCAST
"""

TORCHRUN = """\
[default0]:step 10 loss 2.31
[default1]:step 10 loss 2.29
W0709 17:06:00.000000 4700 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4711 closing signal SIGTERM
E0709 17:06:01.000000 4700 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 1 (pid: 4712) of binary: /usr/bin/python3
Traceback (most recent call last):
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-07-09_17:06:01
  host      : node-a
  rank      : 1 (local_rank: 1)
  exitcode  : -6 (pid: 4712)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 4712
============================================================
"""

PLOG_DEVICE1 = """\
[INFO] HCCL(2111667,python):2025-10-24-11:10:00.000.001 [hccl_comm.cc:100] [2111667]Entry-HcclCommInitRootInfoInner:ranks[2], rank[1], rootinfo: host ip[10.0.0.1] port[60000] nicDeploy[1] identifier[g1], deviceLogicId[1]
[INFO] HCCL(2111667,python):2025-10-24-11:10:01.000.001 [all_reduce_op.cc:50] [2111667]Entry-HcclAllReduce:tag[AllReduce_g1], sendBuf[0x1], recvBuf[0x2], count[1024], dataType[float32], reduceOp[sum], streamId[5], deviceId[1]
[INFO] HCCL(2111667,python):2025-10-24-11:10:02.000.001 [broadcast_op.cc:50] [2111667]Entry-HcclBroadcast:tag[Broadcast_g1], ptr[0x1], count[8], dataType[int64], root[0], streamId[5], deviceId[1]
[INFO] HCCL(2111667,python):2025-10-24-11:10:03.000.001 [all_reduce_op.cc:50] [2111667]Entry-HcclAllReduce:tag[AllReduce_g1], sendBuf[0x1], recvBuf[0x2], count[2048], dataType[bfloat16], reduceOp[sum], streamId[5], deviceId[1]
[ERROR] HCCL(2111667,python):2025-10-24-11:18:29.597.044 [task_exception_handler.cc:908] [2111667][TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], taskID[21], tag[AllReduce_g1], AlgType(level 0-1-2):[fullmesh-ring-NHR].
EI0002: [PID: 2111667] 2025-10-24-11:18:30.645.648 The wait execution of the Notify register times out. Reason: tag[AllReduce_g1]
[ERROR] 2025-10-24-11:18:31 (PID:2111667, Device:1, RankID:1) ERR02200 DIST call hccl api failed.
"""

PIP_FREEZE = "accelerate==1.0.1\nTorch==2.1.0+cu121\ntorch_npu==2.1.0.post3\ntransformers==4.44.0\n"
PIP_LIST = """\
Package            Version
------------------ -----------
accelerate         0.28.0
torch              2.1.0
"""
CONDA_LIST = """\
# packages in environment at /opt/conda/envs/train:
#
# Name                    Version                   Build  Channel
python                    3.10.14              h955ad1f_1
torch                     2.1.0                    pypi_0    pypi
"""
ACCELERATE_ENV = """\
Copy-and-paste the text below in your GitHub issue

- `Accelerate` version: 1.0.1
- Platform: Linux-5.15.0-x86_64-with-glibc2.35
- PyTorch version (GPU?): 2.1.0 (True)
- PyTorch XPU available: False
- GPU type: NVIDIA GeForce RTX 4090
- `Accelerate` default config:
\t- compute_environment: LOCAL_MACHINE
\t- distributed_type: MULTI_GPU
\t- num_processes: 2
"""
COLLECT_ENV = """\
Collecting environment information...
PyTorch version: 2.3.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
OS: Ubuntu 22.04.4 LTS (x86_64)
Is CUDA available: True
CUDA runtime version: 12.1.105
GPU models and configuration:
GPU 0: NVIDIA GeForce RTX 4090
GPU 1: NVIDIA GeForce RTX 4090

Nvidia driver version: 550.54.14
Versions of relevant libraries:
[pip3] numpy==1.26.4
[pip3] torch==2.3.0+cu121
[conda] torch                     2.3.0+cu121              pypi_0    pypi
"""
NVIDIA_SMI = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14    CUDA Version: 12.4     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0 Off |                  Off |
|  30%   35C    P8             20W /  450W |       1MiB /  24564MiB |      0%      Default |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA GeForce RTX 4090        Off |   00000000:02:00.0 Off |                  Off |
|  30%   34C    P8             18W /  450W |       1MiB /  24564MiB |      0%      Default |
+-----------------------------------------+----------------------+----------------------+
"""
NVIDIA_SMI_L = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-3a1e0000-1111)\nGPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-3a1e0000-2222)\n"
NVIDIA_SMI_Q = """\

==============NVSMI LOG==============

Timestamp                                 : Mon Jul  8 10:00:00 2025
Driver Version                            : 535.104.05
CUDA Version                              : 12.2

Attached GPUs                             : 1
GPU 00000000:07:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    Minor Number                          : 0
    FB Memory Usage
        Total                             : 81920 MiB
        Reserved                          : 0 MiB
"""
TOPO = (
    "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tPHB\tSYS\t0-31\t0\t\tN/A\n"
    "GPU1\tPHB\t X \tSYS\t0-31\t0\t\tN/A\n"
    "NIC0\tSYS\tSYS\t X \t\t\t\t\n"
    "\n"
    "Legend:\n\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n"
)
NPU_SMI = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 24.1.0                   Version: 24.1.0                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B3               | OK            | 95.0        36                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3378 / 65536         |
+===========================+===============+====================================================+
| 1     910B3               | OK            | 90.1        35                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          3377 / 65536         |
+===========================+===============+====================================================+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| 0       0                 | 12345         | python                   | 1234                    |
+===========================+===============+====================================================+
"""
ENV_EXPORT = 'declare -x CUDA_VISIBLE_DEVICES="0,1"\ndeclare -x NCCL_P2P_DISABLE="1"\ndeclare -x HOME="/root"\ndeclare -x WORLD_SIZE="2"\n'
ENV_PLAIN = "NCCL_P2P_DISABLE=0\nNCCL_DEBUG=INFO\nPATH=/usr/bin:/bin\n"
ACCELERATE_CONFIG = """\
compute_environment: LOCAL_MACHINE
distributed_type: MULTI_NPU
mixed_precision: bf16
num_machines: 1
num_processes: 2
gpu_ids: all
"""
PYSPY = """\
Process 4711: /usr/bin/python3 -u train.py
Python v3.10.12 (/usr/bin/python3.10)

Thread 4711 (idle): "MainThread"
    all_reduce (torch/distributed/distributed_c10d.py:2050)
    wrapper (torch/distributed/c10d_logger.py:47)
    wait_for_everyone (accelerate/state.py:375)
    main (train.py:88)
Thread 4790 (idle): "Thread-1"
    wait (threading.py:324)
"""
FAULTHANDLER = """\
Fatal Python error: Aborted

Current thread 0x00007f3b1c2e5740 (most recent call first):
  File "/opt/venv/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 2050 in all_reduce
  File "train.py", line 88 in backward
"""
TRAIN_PY = """\
import torch.distributed as dist
from accelerate import Accelerator

accelerator = Accelerator()

def evaluate(model, args):
    if accelerator.is_main_process:
        metrics = accelerator.gather(model.loss)
        model.save_pretrained("out")
    if args.local_rank in [-1, 0]:
        dist.barrier()
    if dist.get_rank() == 0:
        torch.save(model.state_dict(), "x.pt")
    accelerator.wait_for_everyone()
"""
NOTES = "Training hangs after epoch 1, stuck at accelerator.prepare on rank 1.\n两卡训练卡住\n"
