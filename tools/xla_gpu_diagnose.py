"""Issue 34: why the CUDA handler saw the handle of call #0 at the second call. Run on the GPU
machine (about a minute): ENVHIVE_XLA_TRACE=1 python3 tools/xla_gpu_diagnose.py 2> trace.log

Each case runs in a fresh process under one XLA_FLAGS setting; a case that passes where the plain
one fails names the GPU pass at fault. The trace (stderr) has one line per staged call: the stream,
the handle's device address in and out, and the call numbers read and written."""

import os
import subprocess
import sys

CASE = """
import jax, jax.numpy as jnp, numpy as np, envhive
env = envhive.make("CartPole-v1", num_envs=8, seed=3); env.reset()
h, _, _, step = env.xla()
gpu = jax.devices("cuda")[0]
h = jax.device_put(h, gpu)
f = jax.jit(step)                                    # 1. two plain calls, no loop
h, _ = f(h, jnp.zeros(8, jnp.int32)); h, _ = f(h, jnp.zeros(8, jnp.int32)); h.block_until_ready()
print("plain calls ok", flush=True)
A = jax.device_put(jnp.zeros((20, 8), jnp.int32), gpu)
roll = jax.jit(lambda h, A: jax.lax.scan(lambda h, a: (step(h, a)[0], None), h, A)[0])
h = roll(h, A); h.block_until_ready()               # 2. scan, handle only
print("scan (handle only) ok", flush=True)
roll2 = jax.jit(lambda h, A: jax.lax.scan(lambda h, a: (lambda r: (r[0], r[1][0]))(step(h, a)), h, A))
h, obs = roll2(h, A); obs.block_until_ready()       # 3. scan with stacked obs (DUS users)
print("scan (stacked obs) ok", flush=True)
open("/tmp/hlo.txt", "w").write(roll2.lower(h, A).compile().as_text())
"""

FLAGS = {
    "plain": "",
    "no command buffers": "--xla_gpu_enable_command_buffer=",
    "no dynamic-slice fusion": "--xla_gpu_enable_dynamic_slice_fusion=false",
    "no while unrolling": "--xla_gpu_enable_while_loop_unrolling=WHILE_LOOP_UNROLLING_NO_UNROLL",
}
for name, flags in FLAGS.items():
    env = {**os.environ, "XLA_FLAGS": flags, "ENVHIVE_XLA_TRACE": "1"}
    out = subprocess.run([sys.executable, "-c", CASE], env=env, capture_output=True, text=True, timeout=120)
    trace = [line for line in out.stderr.splitlines() if "envhive xla trace" in line]
    errors = [line for line in out.stderr.splitlines() if "envhive[" in line][:1]
    print(f"== {name} ({flags or 'defaults'}): rc {out.returncode}; {out.stdout.strip()!r}; errors {errors}")
    print("\n".join(trace[:6]))
print("compiled HLO of case 3 (last run): /tmp/hlo.txt; look for address_computation / command_buffer")
