#!/usr/bin/env bash
# Runs every fuzz target for a while (default 30 s each; `fuzz/run.sh 600` for ten minutes),
# seeded from the shipped examples and fuzz/seeds. Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). A crash stops the run, leaves the input under
# fuzz/artifacts/<target>/ and exits non-zero; replay it with
# `cargo +nightly fuzz run <target> fuzz/artifacts/<target>/<file>`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
examples=examples

seeds_of() {
  case "$1" in
    cassette) echo "$examples/cassettes" ;;
    suite) echo "$examples" ;;
    tools_file) echo "fuzz/seeds/tools_file" ;;
    *) echo "fuzz/seeds/$1" ;;
  esac
}

# The tools file target reads YAML: seed it with the example tools file alone.
mkdir -p fuzz/seeds/tools_file
cp "$examples/tools.yml" fuzz/seeds/tools_file/tools.yml

cargo +nightly fuzz build --fuzz-dir fuzz
logs=fuzz/target/logs
mkdir -p "$logs"
for target in cassette suite tools_file target matcher validate_trace narrative json_rpc_line; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s"
  if ! cargo +nightly fuzz run --fuzz-dir fuzz "$target" "$corpus" "$(seeds_of "$target")" -- \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 \
    > "$logs/$target.log" 2>&1; then
    # A crash, a hang or running out of memory: the input is kept under fuzz/artifacts/.
    tail -n 40 "$logs/$target.log" >&2
    echo "fuzz: $target failed; failing inputs: $(ls "fuzz/artifacts/$target" 2>/dev/null)" >&2
    exit 1
  fi
  grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added)" "$logs/$target.log"
done
