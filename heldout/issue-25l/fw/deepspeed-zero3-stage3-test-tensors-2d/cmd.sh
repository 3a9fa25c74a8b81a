deepspeed stage3_test.py
