# bench/plot.gp: container start time against image size, one line per
# method, log-log; the bars span the fastest and the slowest trial.
#
#   gnuplot -e "datafile='F'; outfile='O.svg'; subtitle='...'" bench/plot.gp
#
# datafile (scripts/bench.sh writes it from bench.json): one line per
# size: entries, then median, min, max of plain, userns, shift,
# idmap-mount and chown-copy (crun run), then of podman's shiftbind,
# fuse-overlayfs and podman-copy (rootless podman run), in that order.

set terminal svg size 800,640 dynamic enhanced font "sans,13" background "#ffffff"
set output outfile

set title "Container start time vs image size\n{/*0.75 ".subtitle."}"
set xlabel "image size (entries: directories, files, symlinks)"
set ylabel "crun run / podman run to first instruction (s)"
set logscale xy
set xrange [700:140000]
set format y "%g"
set xtics ("1k" 1000, "10k" 10000, "100k" 100000)
set grid xtics ytics mytics lc rgb "#dddddd"
set key top left Left reverse box opaque
set pointsize 1.2

# Colours from the Okabe-Ito palette: distinct with colour blindness too.
# Rootless podman (dashed): the same colours for the same kind of method.
plot datafile using 1:23:24:25 with yerrorlines lw 2 dt 3 pt 7 lc rgb "#E69F00" \
	title "podman-copy (rootless podman, new mapping: chowned copy)", \
     datafile using 1:20:21:22 with yerrorlines lw 2 dt 3 pt 5 lc rgb "#CC79A7" \
	title "fuse-overlayfs (rootless podman, user-space mapping)", \
     datafile using 1:17:18:19 with yerrorlines lw 3 dt 3 pt 9 lc rgb "#56B4E9" \
	title "shiftbind (rootless podman, shared store)", \
     datafile using 1:14:15:16 with yerrorlines lw 2 pt 7 lc rgb "#D55E00" \
	title "chown-copy (copy + chown, what runtimes do today)", \
     datafile using 1:11:12:13 with yerrorlines lw 2 pt 5 lc rgb "#0072B2" \
	title "idmap-mount (real root only)", \
     datafile using 1:8:9:10 with yerrorlines lw 3 pt 9 lc rgb "#009E73" \
	title "shift (shiftbind-hook)", \
     datafile using 1:5:6:7 with yerrorlines lw 1 dt 2 pt 6 lc rgb "#999999" \
	title "userns, no hook (files show as nobody)", \
     datafile using 1:2:3:4 with yerrorlines lw 2 pt 4 lc rgb "#000000" \
	title "plain (no user namespace)"
