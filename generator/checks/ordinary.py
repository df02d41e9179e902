"""Ordinary text: lines that hold no error at all. A record's pattern that finds one of them is too broad (RGX006).

Plain English, the healthy chatter of servers and training runs, and the frame lines of a Python traceback
(which surround every error but name none). Keep each line free of anything an error record could rightly
match; add lines when a too-broad pattern slips through.
"""

ORDINARY_LINES = (
    "The quick brown fox jumps over the lazy dog.",
    "We are happy to announce the release of version 2.1, with faster startup and a smaller memory footprint.",
    "Please make sure you have read the contributing guide before opening a pull request.",
    "It was the best of times, it was the worst of times.",
    "The model was trained on 2 trillion tokens of public data and evaluated on twelve benchmarks.",
    "Thanks for the report! Could you share your environment and the exact command you ran?",
    "This page explains how to install the package, configure the server and send your first request.",
    "Note: the default value changed in this version; see the changelog for details.",
    "Hello, world",
    "OK",
    "INFO 01-02 03:04:05 llm_engine.py:100] Initializing an LLM engine with config: model='meta-llama/Llama-3-8B', dtype=torch.bfloat16",
    "INFO 01-02 03:04:09 model_runner.py:1000] Loading model weights took 14.9595 GB",
    "INFO 01-02 03:04:12 gpu_executor.py:122] # GPU blocks: 27895, # CPU blocks: 2048",
    "INFO:     Started server process [12345]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
    "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
    'INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "2025-01-02T03:04:05.678901Z  INFO text_generation_router: router/src/main.rs:300: Connected",
    "2025-01-02 03:04:05,678 - root - DEBUG - Using 8 worker threads",
    "[2025-01-02 03:04:05] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.01, #running-req: 0",
    "Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.32s/it]",
    "Epoch 3/10: loss=0.4312 accuracy=0.8871 lr=2.0e-05",
    "Successfully installed torch-2.4.0 transformers-4.44.0",
    "Requirement already satisfied: numpy>=1.17 in ./venv/lib/python3.11/site-packages (from transformers) (1.26.4)",
    "Downloading model.safetensors: 100% 4.98G/4.98G [01:02<00:00, 80.1MB/s]",
    "llama_model_loader: loaded meta data with 24 key-value pairs and 291 tensors from model.gguf",
    "main: server is listening on 127.0.0.1:8080",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.11/runpy.py", line 198, in _run_module_as_main',
    "    return _run_code(code, main_globals, None,",
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
    "Process finished with exit code 0",
    "$ python -m vllm.entrypoints.openai.api_server --model facebook/opt-125m --port 8000",
    "Mon Jan  2 03:04:05 2025",
    "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4 |",
    "    at Object.<anonymous> (/app/index.js:10:15)",
    "",
    " ",
)
