import math, os, time, torch
from accelerate import Accelerator
from accelerate.logging import get_logger
from transformers import AutoModelForCausalLM, AutoTokenizer, get_linear_schedule_with_warmup
from data import build_sft_loaders

logger = get_logger(__name__)

def evaluate(model, eval_dl, accelerator):
    model.eval()
    losses = []
    for batch in eval_dl:
        with torch.no_grad():
            out = model(**batch)
        losses.append(accelerator.gather_for_metrics(out.loss.detach().repeat(batch["input_ids"].shape[0])))
    model.train()
    return torch.cat(losses).mean().item()

def main():
    accelerator = Accelerator(gradient_accumulation_steps=4, log_with="tensorboard", project_dir="runs")
    tok = AutoTokenizer.from_pretrained("/models/Llama-2-13b-hf")
    model = AutoModelForCausalLM.from_pretrained("/models/Llama-2-13b-hf", torch_dtype=torch.bfloat16)
    train_dl, eval_dl = build_sft_loaders(tok, micro_bs=4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    sched = get_linear_schedule_with_warmup(opt, 200, 10 * len(train_dl))
    model, opt, train_dl, eval_dl, sched = accelerator.prepare(model, opt, train_dl, eval_dl, sched)
    best = math.inf
    for epoch in range(10):
        for step, batch in enumerate(train_dl):
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                opt.step(); sched.step(); opt.zero_grad()
        eval_loss = evaluate(model, eval_dl, accelerator)
        logger.info(f"epoch {epoch}: eval_loss={eval_loss:.4f}", main_process_only=True)
        if accelerator.is_main_process and epoch >= 7 and eval_loss < best:
            best = eval_loss
            state_dict = accelerator.get_state_dict(model)
            accelerator.unwrap_model(model).save_pretrained(
                f"/ckpt/llama13b-sft/best", state_dict=state_dict, safe_serialization=True)
            tok.save_pretrained("/ckpt/llama13b-sft/best")
            logger.info(f"saved new best checkpoint (epoch {epoch})", main_process_only=True)
        accelerator.wait_for_everyone()

if __name__ == "__main__":
    main()
