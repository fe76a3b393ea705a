-- A per-user adapter version served by SGLang/vLLM multi-LoRA: the PEFT folder the engine loads it from.
ALTER TABLE "user_adapters" ADD COLUMN "path" TEXT;
