# aipc test stand-in (NOT the Qualcomm SDK): sets what the real envsetup.sh sets.
QAIRT_SDK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
export QAIRT_SDK_ROOT QNN_SDK_ROOT="$QAIRT_SDK_ROOT" SNPE_ROOT="$QAIRT_SDK_ROOT"
export PATH="$QAIRT_SDK_ROOT/bin/x86_64-linux-clang:$PATH"
export LD_LIBRARY_PATH="$QAIRT_SDK_ROOT/lib/x86_64-linux-clang:${LD_LIBRARY_PATH:-}"
