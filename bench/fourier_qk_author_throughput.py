"""Training throughput of the FourierQK author's own script, for the side-by-side with
bench_transformer's qk-b64 cases (FourierLab at the same shape) on the same machine.

  python3 bench/fourier_qk_author_throughput.py SCRIPT CORPUS [--steps 40] [--warmup 10]
                                                [--batch 64] [--variants fourier,none]

SCRIPT is the author's paper5a_fourierqk/train_freq_ablation_fixed.py (energy-gated-attention);
CORPUS is TinyShakespeare. The script runs its experiments only under __main__, so importing it
gives its model, optimiser and training loop unchanged: this calls its own train_model() with
cfg.max_steps set. train_model also builds the model and evaluates at its first and last step
(here one batch each, cfg.eval_iters = 1); timing train_model at two lengths and dividing the
difference by the extra steps leaves the training steps alone. A first, untimed call warms the
device (kernels, FFT plans, the allocator).

Variants: fourier = the learned Gaussian band-pass (SpectralQKLearned, init bin 4), FourierLab's
variant=fourier; none = the plain dot product (BASE-DOT), FourierLab's variant=none. The
author's script trains in float32.
"""
import argparse
import contextlib
import importlib.util
import io
import os
import shutil
import sys
import tempfile
import time


def load_author_script(script, corpus):
    # The script reads ./tinyshakespeare.txt at import (and would download it when missing).
    workdir = tempfile.mkdtemp(prefix="fourierqk-author-")
    shutil.copyfile(corpus, os.path.join(workdir, "tinyshakespeare.txt"))
    os.chdir(workdir)
    spec = importlib.util.spec_from_file_location("fourierqk_author", script)
    module = importlib.util.module_from_spec(spec)
    with contextlib.redirect_stdout(io.StringIO()):
        spec.loader.exec_module(module)
    return module


def seconds_of_training(module, variant, steps):
    module.cfg.max_steps = steps
    module.cfg.eval_interval = steps + 1  # evaluate at the first step and the end only
    module.cfg.eval_iters = 1
    kwargs = {"fourier": dict(attn_class=module.SpectralQKLearned, attn_kwargs={"init_bin": 4},
                              is_learned=True),
              "none": dict(standard=True)}[variant]
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        module.train_model(f"throughput-{variant}", **kwargs)  # ends in .item(): synchronised
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script")
    parser.add_argument("corpus")
    parser.add_argument("--steps", type=int, default=40, help="timed training steps")
    parser.add_argument("--warmup", type=int, default=10, help="steps of the shorter call")
    parser.add_argument("--batch", type=int, default=64, help="the author's is 64")
    parser.add_argument("--variants", default="fourier,none")
    args = parser.parse_args()
    for path in (args.script, args.corpus):
        if not os.path.isfile(path):
            sys.exit(f"fourier_qk_author_throughput: no file {path}")

    module = load_author_script(os.path.abspath(args.script), os.path.abspath(args.corpus))
    module.cfg.batch_size = args.batch
    tokens_per_step = module.cfg.batch_size * module.cfg.block_size
    print(f"author's script on {module.DEVICE}: {module.cfg.n_layer} layers, {module.cfg.n_head} "
          f"heads, width {module.cfg.n_embd}, batch {module.cfg.batch_size}, "
          f"T {module.cfg.block_size}, float32")
    print(f"{'case':<18} {'ms/step':>9} {'tokens/s':>10}")
    for variant in args.variants.split(","):
        seconds_of_training(module, variant, 2)  # warm-up, untimed
        short = seconds_of_training(module, variant, args.warmup)
        long = seconds_of_training(module, variant, args.warmup + args.steps)
        per_step = (long - short) / args.steps
        print(f"author qk-b{args.batch}/{variant:<8} {per_step * 1e3:9.1f} "
              f"{tokens_per_step / per_step:10.0f}", flush=True)


if __name__ == "__main__":
    main()
