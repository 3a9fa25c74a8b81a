from trl.extras.vllm_client import VLLMClient

vllm_client = VLLMClient(
    "http://0.0.0.0:8000",
    connection_timeout=10
)
print("started init_communicator")
vllm_client.init_communicator()
print("done!")
