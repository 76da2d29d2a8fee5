# nodescale compare: spread across inputs per benchmark (gnuplot compare.gp)
set terminal svg size 1200,600 dynamic font 'sans,10'
set output 'compare.svg'
set title 'Spread across inputs per benchmark (sorted); bars above the dots differ'
set ylabel 'max/min - 1 (%)'
set xlabel 'benchmark (see compare.md for ids, same order)'
set style fill solid 0.8
set boxwidth 0.8
set grid ytics
set key top right
set yrange [0:*]
set xrange [-1:*]
plot for [k=0:4] 'compare.dat' using ($3==k ? $1 : 1/0):2 with boxes title word('gemm stream/bandwidth reduce peak allreduce', k+1), \
     'compare.dat' using 1:4 with points pt 7 ps 0.5 lc rgb 'black' title 'threshold (max(min spread, 3x noise))'
