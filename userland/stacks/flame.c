// SPDX-License-Identifier: GPL-2.0
/*
 * kpmc-flame: a flame graph (SVG) of folded stacks, drawn with cairo.
 *
 *   kpmc-flame [--title TEXT] [--width POINTS] [-o FILE.svg] [FOLDED]
 *
 * FOLDED (standard input without it) holds lines "frame;frame;...;leaf N"
 * (kpmc report --folded: outermost frame first, kernel frames as name_[k]).
 * Stacks with a common beginning share their frames: each frame is a box
 * as wide as the samples it was in, its callees stacked on it, siblings
 * in name order, the whole run ("all") at the bottom. Names are written
 * where they fit, cut short with ".." where only part does.
 *
 * Cairo's SVG surface draws text as glyph outlines, so the picture alone
 * holds no searchable names: after cairo's drawing the SVG gets a layer
 * of transparent boxes over the frames, each with a <title> ("name (N
 * samples, P%)") that browsers show on hover and tools can read.
 */
#define _GNU_SOURCE
#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/growarray.h"

#define FRAME_HEIGHT	16.0	/* points per stack level */
#define MARGIN		10.0
#define TITLE_SPACE	44.0	/* title and subtitle above the graph */
#define FONT_SIZE	10.0
#define MIN_WIDTH	0.1	/* narrower frames (and their callees) are not drawn */

struct node {
	char *name;
	unsigned long long samples;
	struct node **kids;
	size_t nkids, cap;
};

/* The SVG as cairo writes it, kept in memory to add the title layer. */
struct buffer {
	char *data;
	size_t len, cap;
	int failed;
};

/* The title layer: one box per drawn frame. */
struct hover {
	double x, y, w;
	const struct node *node;
};

struct graph {
	struct node root;
	unsigned int depth;		/* levels above the root */
	double width, height, scale;	/* points; points per sample */
	cairo_t *cr;
	struct hover *hovers;
	size_t nhovers, caphovers;
	int failed;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kpmc-flame [--title TEXT] [--width POINTS] [-o FILE.svg] [FOLDED]\n"
		   "  FOLDED: lines \"outer;...;leaf COUNT\" (kpmc report --folded); standard input without it\n");
}

static struct node *child(struct node *n, const char *name, size_t len)
{
	struct node *c;
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if (!strncmp(n->kids[i]->name, name, len) && !n->kids[i]->name[len])
			return n->kids[i];
	if (grow_array((void **)&n->kids, &n->cap, n->nkids + 1, sizeof(*n->kids), 4))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strndup(name, len))) {
		free(c);
		return NULL;
	}
	n->kids[n->nkids++] = c;
	return c;
}

static void free_node(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		free_node(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

/* One folded line into the tree; 0, or -1 with the reason in why. */
static int add_line(struct graph *g, char *line, char *why, size_t len)
{
	char *sp = strrchr(line, ' '), *end, *frame;
	unsigned long long count;
	struct node *n = &g->root;
	unsigned int depth = 0;

	if (!sp || sp == line) {
		snprintf(why, len, "want 'frame;...;frame COUNT', got '%.60s'", line);
		return -1;
	}
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (sp[1] < '0' || sp[1] > '9' || *end || errno || !count) {
		snprintf(why, len, "count '%.30s' is not a positive number", sp + 1);
		return -1;
	}
	*sp = '\0';
	for (frame = line; frame; ) {
		char *semi = strchr(frame, ';');
		size_t flen = semi ? (size_t)(semi - frame) : strlen(frame);

		if (!flen || memchr(frame, ' ', flen)) {
			snprintf(why, len, "frame '%.*s' is empty or has a blank", (int)(flen > 60 ? 60 : flen),
				 frame);
			return -1;
		}
		n = child(n, frame, flen);
		if (!n) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		n->samples += count;
		depth++;
		frame = semi ? semi + 1 : NULL;
	}
	g->root.samples += count;
	if (depth > g->depth)
		g->depth = depth;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->name, (*(struct node *const *)b)->name);
}

static void sort_tree(struct node *n)
{
	size_t i;

	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), by_name);
	for (i = 0; i < n->nkids; i++)
		sort_tree(n->kids[i]);
}

/* A colour of its own for each name, steady from run to run: warm for user frames, blue for the kernel's. */
static void frame_colour(const char *name, double rgb[3])
{
	size_t n = strlen(name);
	uint32_t h = 2166136261u;
	double v;
	const char *s;

	for (s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	v = (double)(h % 1000) / 1000.0;
	if (!strcmp(name, "all")) {
		rgb[0] = rgb[1] = rgb[2] = 0.82;
	} else if (n > 4 && !strcmp(name + n - 4, "_[k]")) {
		rgb[0] = 0.35 + 0.2 * v;
		rgb[1] = 0.6 + 0.2 * v;
		rgb[2] = 0.9;
	} else if (name[0] == '[') {
		/* Unresolved ([libc.so.6], [unknown]): grey, not mistaken for a function. */
		rgb[0] = rgb[1] = rgb[2] = 0.7 + 0.1 * v;
	} else {
		rgb[0] = 0.9 + 0.1 * v;
		rgb[1] = 0.35 + 0.5 * v;
		rgb[2] = 0.15 + 0.15 * v;
	}
}

/* The label of a frame w points wide: the name, or its start and "..", or nothing. */
static void label(cairo_t *cr, const char *name, double w, char *out, size_t len)
{
	cairo_text_extents_t ext;
	size_t n = strlen(name);

	out[0] = '\0';
	cairo_text_extents(cr, name, &ext);
	if (ext.x_advance + 6 <= w) {
		snprintf(out, len, "%s", name);
		return;
	}
	/* Two characters and ".." need this much: narrower frames get no cut name. */
	if (w < 2.5 * FONT_SIZE)
		return;
	/* No glyph is narrower than 2 points at this size: start where the cut could fit. */
	if (n > w / 2)
		n = (size_t)(w / 2);
	for (; n > 2; n--) {
		snprintf(out, len, "%.*s..", (int)(n - 1), name);
		cairo_text_extents(cr, out, &ext);
		if (ext.x_advance + 6 <= w)
			return;
	}
	out[0] = '\0';
}

static void draw_frame(struct graph *g, const struct node *n, double x, unsigned int level)
{
	double w = (double)n->samples * g->scale, y, rgb[3];
	char text[512];
	size_t i;

	if (w < MIN_WIDTH)
		return;
	y = g->height - MARGIN - (level + 1) * FRAME_HEIGHT;
	frame_colour(n->name, rgb);
	cairo_set_source_rgb(g->cr, rgb[0], rgb[1], rgb[2]);
	cairo_rectangle(g->cr, x, y, w, FRAME_HEIGHT - 1);
	cairo_fill(g->cr);
	label(g->cr, n->name, w, text, sizeof(text));
	if (text[0]) {
		cairo_set_source_rgb(g->cr, 0, 0, 0);
		cairo_move_to(g->cr, x + 3, y + FRAME_HEIGHT - 4.5);
		cairo_show_text(g->cr, text);
	}
	if (grow_array((void **)&g->hovers, &g->caphovers, g->nhovers + 1, sizeof(*g->hovers), 256)) {
		g->failed = 1;
		return;
	}
	g->hovers[g->nhovers++] = (struct hover){ x, y, w, n };
	for (i = 0; i < n->nkids; i++) {
		draw_frame(g, n->kids[i], x, level + 1);
		x += (double)n->kids[i]->samples * g->scale;
	}
}

static cairo_status_t to_buffer(void *closure, const unsigned char *data, unsigned int len)
{
	struct buffer *b = closure;

	if (grow_array((void **)&b->data, &b->cap, b->len + len, 1, 65536)) {
		b->failed = 1;
		return CAIRO_STATUS_WRITE_ERROR;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return CAIRO_STATUS_SUCCESS;
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

/* cairo's SVG, with the title layer before its closing tag. */
static int write_svg(struct graph *g, const struct buffer *b, FILE *out)
{
	const char *close = NULL, *p;
	size_t i;

	for (p = b->data; (p = memmem(p, b->len - (size_t)(p - b->data), "</svg>", 6)); p++)
		close = p;
	if (!close) {
		fprintf(stderr, "kpmc-flame: cairo's SVG has no closing </svg>\n");
		return -1;
	}
	fwrite(b->data, 1, (size_t)(close - b->data), out);
	fputs("<g id=\"kpmc-frames\" fill=\"#000\" fill-opacity=\"0\">\n", out);
	for (i = 0; i < g->nhovers; i++) {
		const struct hover *h = &g->hovers[i];

		fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>", h->x, h->y,
			h->w, FRAME_HEIGHT - 1);
		xml_text(out, h->node->name);
		fprintf(out, " (%llu samples, %.2f%%)</title></rect>\n", h->node->samples,
			100.0 * (double)h->node->samples / (double)g->root.samples);
	}
	fputs("</g>\n", out);
	fwrite(close, 1, b->len - (size_t)(close - b->data), out);
	return 0;
}

static int draw(struct graph *g, const char *title, FILE *out)
{
	struct buffer b = { 0 };
	cairo_surface_t *surface;
	cairo_text_extents_t ext;
	char sub[128];
	int rc = 0;

	g->height = TITLE_SPACE + (g->depth + 1) * FRAME_HEIGHT + 2 * MARGIN;
	g->scale = (g->width - 2 * MARGIN) / (double)g->root.samples;
	surface = cairo_svg_surface_create_for_stream(to_buffer, &b, g->width, g->height);
	g->cr = cairo_create(surface);
	cairo_set_source_rgb(g->cr, 1, 1, 1);
	cairo_paint(g->cr);
	cairo_select_font_face(g->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(g->cr, 16);
	cairo_text_extents(g->cr, title, &ext);
	cairo_set_source_rgb(g->cr, 0, 0, 0);
	cairo_move_to(g->cr, (g->width - ext.x_advance) / 2, MARGIN + 16);
	cairo_show_text(g->cr, title);
	snprintf(sub, sizeof(sub), "%llu samples, %u frames deep; width: share of samples", g->root.samples,
		 g->depth);
	cairo_select_font_face(g->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(g->cr, FONT_SIZE);
	cairo_text_extents(g->cr, sub, &ext);
	cairo_move_to(g->cr, (g->width - ext.x_advance) / 2, MARGIN + 32);
	cairo_show_text(g->cr, sub);
	draw_frame(g, &g->root, MARGIN, 0);
	cairo_destroy(g->cr);
	cairo_surface_finish(surface);
	if (cairo_surface_status(surface) || b.failed || g->failed) {
		fprintf(stderr, "kpmc-flame: cairo: %s\n",
			b.failed || g->failed ? "out of memory" :
			cairo_status_to_string(cairo_surface_status(surface)));
		rc = -1;
	}
	cairo_surface_destroy(surface);
	if (!rc)
		rc = write_svg(g, &b, out);
	free(b.data);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "title", required_argument, NULL, 't' },
		{ "width", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct graph g = { .width = 1200 };
	const char *title = "Flame graph", *outfile = NULL, *infile = NULL;
	char *line = NULL, why[160];
	unsigned long lineno = 0;
	size_t cap = 0;
	ssize_t n;
	int opt, rc = 0;
	FILE *in = stdin, *out = stdout;

	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			title = optarg;
			break;
		case 'w': {
			char *end;

			g.width = strtod(optarg, &end);
			if (*end || !(g.width >= 200 && g.width <= 100000)) {
				fprintf(stderr, "kpmc-flame: --width '%s': want points, 200 to 100000\n", optarg);
				return 2;
			}
			break;
		}
		case 'o':
			outfile = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 < argc) {
		usage(stderr);
		return 2;
	}
	if (optind < argc) {
		infile = argv[optind];
		in = fopen(infile, "r");
		if (!in) {
			fprintf(stderr, "kpmc-flame: %s: %s\n", infile, strerror(errno));
			return 2;
		}
	}
	g.root.name = strdup("all");
	while (g.root.name && (n = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (!n)
			continue;
		if (add_line(&g, line, why, sizeof(why))) {
			fprintf(stderr, "kpmc-flame: %s:%lu: %s\n", infile ? infile : "stdin", lineno, why);
			rc = 2;
			break;
		}
	}
	free(line);
	if (in != stdin)
		fclose(in);
	if (!rc && !g.root.samples) {
		fprintf(stderr, "kpmc-flame: %s: no stacks\n", infile ? infile : "stdin");
		rc = 2;
	}
	if (!rc && outfile && !(out = fopen(outfile, "w"))) {
		fprintf(stderr, "kpmc-flame: %s: %s\n", outfile, strerror(errno));
		rc = 2;
	}
	if (!rc) {
		sort_tree(&g.root);
		if (draw(&g, title, out))
			rc = 1;
		if (out != stdout && fclose(out)) {
			fprintf(stderr, "kpmc-flame: %s: %s\n", outfile, strerror(errno));
			rc = 1;
		}
	}
	free_node(&g.root);
	free(g.hovers);
	return rc;
}
