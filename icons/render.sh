#!/bin/sh
# Regenerates every PNG/ICO/ICNS in this folder from the SVG sources.
# Needs rsvg-convert (librsvg2-bin), ImageMagick 6 `convert` (imagemagick), png2icns (icnsutils).
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rsvg-convert -w 32  -h 32  beckon.svg -o 32x32.png
rsvg-convert -w 128 -h 128 beckon.svg -o 128x128.png
rsvg-convert -w 256 -h 256 beckon.svg -o 128x128@2x.png
rsvg-convert -w 512 -h 512 beckon.svg -o icon.png
# The web app's icons (the window served by a team server, installed on a phone): the same
# icon, and a maskable one whose icon sits inside the safe zone on a full-bleed background.
rsvg-convert -w 192 -h 192 beckon.svg -o ../ui/public/icons/icon-192.png
cp icon.png ../ui/public/icons/icon-512.png
convert -size 512x512 xc:'#5B4BEA' \( icon.png -resize 400x400 \) -gravity center -composite PNG32:../ui/public/icons/maskable-512.png
rsvg-convert -w 64  -h 64  tray.svg -o tray.png
rsvg-convert -w 64  -h 64  tray-waiting.svg -o tray-waiting.png

# Each size rendered from the vector source, not downscaled from one bitmap.
for s in 16 32 48 64 128 256 512 1024; do
  rsvg-convert -w $s -h $s beckon.svg -o "$tmp/$s.png"
done
convert "$tmp/16.png" "$tmp/32.png" "$tmp/48.png" "$tmp/64.png" "$tmp/256.png" icon.ico
png2icns icon.icns "$tmp/16.png" "$tmp/32.png" "$tmp/48.png" "$tmp/128.png" "$tmp/256.png" "$tmp/512.png" "$tmp/1024.png" >/dev/null
