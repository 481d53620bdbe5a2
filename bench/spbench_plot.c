/* spbench --plot: an SVG bar chart, one group per matrix, one bar per format (its fastest
 * algorithm) and AUTO, height = speedup over the run's CSR baseline, a line at 1.0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "spbench_util.h"

#define NSERIES (SP_FORMAT_COUNT + 1) /* the seven formats, then AUTO */
#define BAR_W 11
#define GROUP_GAP 18
#define MARGIN_L 78
#define MARGIN_R 24
#define MARGIN_T 78
#define MARGIN_B 120
#define PLOT_H 340

static const char *const COLOURS[NSERIES] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                             "#59a14f", "#edc948", "#b07aa1", "#222222"};

static sp_format_t series_format(int s)
{
    return s < SP_FORMAT_COUNT ? (sp_format_t)s : SP_FORMAT_AUTO;
}

static double bar_value(const sb_report_t *r, int s)
{
    const sb_format_row_t *w = sb_best_row(r, series_format(s));
    return w ? w->speedup[SB_CUSPARSE_CSR] : 0;
}

/* Text for an SVG text node or attribute. */
static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
}

/* The top of the y axis and a round tick step giving at most eight ticks. */
static void y_scale(const sb_report_t *reports, int n, double *top, double *step)
{
    double max = 1.2;
    for (int i = 0; i < n; i++)
        for (int s = 0; s < NSERIES; s++)
            if (bar_value(&reports[i], s) * 1.08 > max) max = bar_value(&reports[i], s) * 1.08;
    static const double mult[] = {0.2, 0.25, 0.5, 1, 2};
    double p = pow(10.0, floor(log10(max))); /* max in [p, 10p) */
    *step = 2 * p;
    for (int i = 0; i < 5; i++)
        if (max / (p * mult[i]) <= 8) {
            *step = p * mult[i];
            break;
        }
    *top = ceil(max / *step) * *step;
}

static void draw_axes(FILE *f, int width, double top, double step, const char *baseline)
{
    int x0 = MARGIN_L, x1 = width - MARGIN_R, y0 = MARGIN_T + PLOT_H;
    for (double t = 0; t <= top + 1e-9; t += step) {
        double y = y0 - t / top * PLOT_H;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                x0, y, x1, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">%g</text>\n",
                x0 - 6, y + 4, t);
    }
    double y1 = y0 - 1.0 / top * PLOT_H;
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00000\" "
               "stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>\n", x0, y1, x1, y1);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
               "fill=\"#c00000\">1.0 = ", x1, y1 - 4);
    xml_text(f, baseline);
    fprintf(f, "</text>\n");
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", x0,
            MARGIN_T, x0, y0);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", x0, y0,
            x1, y0);
    fprintf(f, "<text transform=\"translate(20,%d) rotate(-90)\" text-anchor=\"middle\" "
               "font-size=\"13\">speedup over ", MARGIN_T + PLOT_H / 2);
    xml_text(f, baseline);
    fprintf(f, " (higher is better)</text>\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\">matrix</text>\n",
            (x0 + x1) / 2, y0 + MARGIN_B - 8);
}

static void draw_legend(FILE *f)
{
    for (int s = 0; s < NSERIES; s++) {
        int x = MARGIN_L + s * 84;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x,
                MARGIN_T - 34, COLOURS[s]);
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n", x + 16,
                MARGIN_T - 24, sp_format_name(series_format(s)));
    }
}

static void draw_group(FILE *f, const sb_report_t *r, int g, double top)
{
    int gx = MARGIN_L + GROUP_GAP / 2 + g * (NSERIES * BAR_W + GROUP_GAP), y0 = MARGIN_T + PLOT_H;
    for (int s = 0; s < NSERIES; s++) {
        double v = bar_value(r, s), h = v / top * PLOT_H;
        if (v <= 0) continue;
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
                   "<title>", gx + s * BAR_W, y0 - h, BAR_W - 1, h, COLOURS[s]);
        xml_text(f, sb_short_name(r));
        fprintf(f, " %s: %.3fx</title></rect>\n", sp_format_name(series_format(s)), v);
    }
    int cx = gx + NSERIES * BAR_W / 2;
    fprintf(f, "<text transform=\"translate(%d,%d) rotate(-35)\" text-anchor=\"end\" "
               "font-size=\"11\">", cx, y0 + 14);
    xml_text(f, sb_short_name(r));
    fprintf(f, "</text>\n");
}

int sb_write_plot_svg(const char *path, const sb_report_t *reports, int n)
{
    double top, step;
    const char *baseline = "";
    const char *device = n > 0 ? reports[0].device.name : "";
    int width = MARGIN_L + MARGIN_R + n * (NSERIES * BAR_W + GROUP_GAP);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spbench: cannot write %s\n", path);
        return -1;
    }
    for (int i = 0; i < n && !baseline[0]; i++)
        if (reports[i].baseline_name[0]) baseline = reports[i].baseline_name[0];
    if (width < MARGIN_L + NSERIES * 84 + MARGIN_R) width = MARGIN_L + NSERIES * 84 + MARGIN_R;
    y_scale(reports, n, &top, &step);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
            width, MARGIN_T + PLOT_H + MARGIN_B, width, MARGIN_T + PLOT_H + MARGIN_B);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">libsp SpMV: "
               "speedup of each format (fastest algorithm) and AUTO on ", MARGIN_L);
    xml_text(f, device[0] ? device : "host");
    fprintf(f, "</text>\n");
    draw_legend(f);
    draw_axes(f, width, top, step, baseline);
    for (int i = 0; i < n; i++) draw_group(f, &reports[i], i, top);
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "spbench: cannot write %s\n", path);
        return -1;
    }
    printf("plot: %s\n", path);
    return 0;
}
