nvidia-docker run -it --network=host -v /mnt/share/ssh:/root/.ssh horovod:latest

nvidia-docker run -it --network=host -v /mnt/share/ssh:/root/.ssh horovod:latest bash -c "/usr/sbin/sshd -p 6006; sleep infinity"

horovodrun -np 2 -H {first_VM_IP}:6006:1, {second_VM_IP}:6006:1 -p 6006 python multi_worker_training.py
