# attack: write outside the workdir through a relative path that climbs out
# with .. (workdir and target are siblings).
# detected: the test compares $OUT/file and looks for $OUT/new afterwards.
rel=$(realpath --relative-to="$PWD" "$OUT")
echo "relative path: $rel"
echo pwned > "$rel/file"
echo pwned > "$rel/new"
echo pwned > "../$(basename "$OUT")/new"
