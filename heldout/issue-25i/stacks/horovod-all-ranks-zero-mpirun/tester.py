import tensorflow as tf
import horovod.tensorflow as hvd
hvd.init()
print(str(hvd.local_rank()))
