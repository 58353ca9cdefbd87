# A peer runner that is installed (its probe answers) but fails on every model, after writing
# to stderr: clustune-bench must show that stderr, which it otherwise keeps at debug level.
case "$*" in
  *--probe*) echo '{"status": "ok", "runtime": "ort", "version": "0"}' ;;
  *) echo "the peer broke here" >&2
     echo '{"status": "failed", "reason": "ort: it broke"}'
     exit 1 ;;
esac
