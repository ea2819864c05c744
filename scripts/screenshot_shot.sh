# The lab started on a screen of its own and photographed: sourced by the screenshot scripts.
# Needs GUI (the lab's binary), DB (its store), WORK (a scratch folder) and `settings` (window
# settings to start from, printf's %b text; empty for a first start).

# A display of its own per shot: xvfb-run -a sometimes handed the lab a server that dropped the
# connection ("The X11 connection broke") and the picture came out black.
free_display() {
  n=90
  while [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; do n=$((n + 1)); done
  echo "$n"
}

shot() {  # SIZE NAME ARGS...: starts the lab on a fresh screen, waits, takes the screen
  size=$1
  name=$2
  shift 2
  rm -rf "$WORK/config-$name-$size"  # a first start: no window state kept from a former shot
  if [ -n "$settings" ]; then  # or a start with these settings kept from a former session
    mkdir -p "$WORK/config-$name-$size/FourierLab"
    printf '%b' "$settings" >"$WORK/config-$name-$size/FourierLab/FourierLab.conf"
  fi
  display=:$(free_display)
  Xvfb "$display" -screen 0 "${size}x24" -nolisten tcp >"$WORK/xvfb-$name-$size.log" 2>&1 &
  xvfb=$!
  gui=
  trap 'kill $gui $xvfb 2>/dev/null || true' EXIT  # nothing left running if a step fails
  # Up to 15 s: on a loaded machine (a build beside it) Xvfb took more than 5.
  for _ in $(seq 150); do xdpyinfo -display "$display" >/dev/null 2>&1 && break; sleep 0.1; done
  if ! xdpyinfo -display "$display" >/dev/null 2>&1; then
    echo "error: Xvfb did not start on $display (is xvfb installed?); it said:" >&2
    cat "$WORK/xvfb-$name-$size.log" >&2
    exit 1
  fi
  XDG_CONFIG_HOME="$WORK/config-$name-$size" DISPLAY=$display QT_QPA_PLATFORM=xcb \
    $GUI --db "$DB" -geometry "${size}+0+0" "$@" >/dev/null 2>&1 &
  gui=$!
  sleep "${SHOT_DELAY:-30}"
  png=docs/screenshot-$name-$size.png
  drawn=0
  for _ in 1 2 3; do  # a black frame: the window was not drawn yet, take it again a bit later
    DISPLAY=$display import -window root "$png"
    if [ "$(convert "$png" -format '%[fx:mean > 0]' info:)" = 1 ]; then
      drawn=1
      break
    fi
    echo "$png came out black, taking it again" >&2
    sleep 10
  done
  kill "$gui" 2>/dev/null || true
  wait "$gui" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  wait "$xvfb" 2>/dev/null || true
  trap - EXIT
  if [ "$drawn" != 1 ]; then
    echo "error: $png is still black after three tries" >&2
    exit 1
  fi
  echo "$png"
}

