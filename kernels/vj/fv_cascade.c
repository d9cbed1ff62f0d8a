/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cascade parser: GMarkup walks the XML; each element is known by its
 * whole path below <cascade> (so nothing can stand out of order or out of
 * place), and every number is checked (finite, whole where it must be, in
 * range) before it is cast. A cascade is often downloaded: nothing in it
 * may reach the detector unchecked. */
#include <glib.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fv_cascade.h"
#include "fv_file.h"

/* Indices past these are refused before any cast (the file cap keeps
 * real counts far below them). */
#define MAX_INDEX (1 << 24)

typedef struct {
  GPtrArray *path;          /* element names from the root */
  GString *text;
  fv_cascade *c;
  int stage_num, cascades, have_type, in_feature;
  GArray *stages, *weak, *nodes, *leaves, *features;
  fv_cascade_feature cur_feature;
  int cur_lbp_rect;         /* the current feature came from an LBP <rect> */
  gboolean in_cascade, old_format;
} parse_state;

/* The path below <cascade>: "stages/_/weakClassifiers/_", or NULL outside. */
static gchar *
inner_path (parse_state *s)
{
  if (!s->in_cascade || s->path->len < 2)
    return NULL;
  GString *p = g_string_new (NULL);
  for (guint i = 2; i < s->path->len; i++)
    g_string_append_printf (p, "%s%s", i > 2 ? "/" : "", (char *) g_ptr_array_index (s->path, i));
  return g_string_free (p, FALSE);
}

static void
refuse (GMarkupParseContext *ctx, GError **error, const char *fmt, ...)
{
  if (*error)
    return;
  va_list ap;
  va_start (ap, fmt);
  char *why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  int line, col;
  g_markup_parse_context_get_position (ctx, &line, &col);
  g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "line %d: %s", line, why);
  g_free (why);
}

/* Where in the cascade the element at path p is, for messages. */
static char *
where (parse_state *s, const char *p)
{
  if (g_str_has_prefix (p, "features/"))
    return g_strdup_printf ("feature %u", s->features->len);
  if (g_str_has_prefix (p, "stages/_/weakClassifiers/_/"))
    return g_strdup_printf ("stage %u, weak classifier %d", s->stages->len - 1,
        g_array_index (s->stages, fv_cascade_stage, s->stages->len - 1).nweak - 1);
  if (g_str_has_prefix (p, "stages/_/"))
    return g_strdup_printf ("stage %u", s->stages->len - 1);
  return g_strdup ("the cascade");
}

static void
on_start (GMarkupParseContext *ctx, const gchar *name, const gchar **attr_names,
    const gchar **attr_values, gpointer user, GError **error)
{
  parse_state *s = user;
  g_ptr_array_add (s->path, g_strdup (name));
  g_string_truncate (s->text, 0);
  for (int i = 0; attr_names[i]; i++)
    if (!strcmp (attr_names[i], "type_id") && !strcmp (attr_values[i], "opencv-haar-classifier"))
      s->old_format = TRUE;
  if (s->old_format) {
    g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
        "the old opencv-haar-classifier format is not supported: use a cascade in the "
        "opencv-cascade-classifier format (opencv_traincascade, or OpenCV's converter)");
    return;
  }
  /* <cascade> under the root, with or without type_id="opencv-cascade-classifier" */
  if (s->path->len == 2 && !strcmp (name, "cascade")
      && !strcmp (g_ptr_array_index (s->path, 0), "opencv_storage")) {
    if (++s->cascades > 1)
      refuse (ctx, error, "a second <cascade> (one file holds one cascade)");
    s->in_cascade = TRUE;
    return;
  }
  gchar *p = inner_path (s);
  if (!p)
    return;
  /* the structural elements stand in one place only */
  static const char *const places[][2] = {
    { "stages", "stages" }, { "features", "features" },
    { "stageThreshold", "stages/_/stageThreshold" },
    { "weakClassifiers", "stages/_/weakClassifiers" },
    { "internalNodes", "stages/_/weakClassifiers/_/internalNodes" },
    { "leafValues", "stages/_/weakClassifiers/_/leafValues" },
    { "rects", "features/_/rects" }, { "rect", "features/_/rect" },
    { "tilted", "features/_/tilted" },
  };
  for (unsigned i = 0; i < G_N_ELEMENTS (places); i++)
    if (!strcmp (name, places[i][0]) && strcmp (p, places[i][1]))
      refuse (ctx, error, "<%s> out of place (at %s)", name, p);
  if ((!strcmp (p, "stages") || !strcmp (p, "features")) && !s->have_type) {
    refuse (ctx, error, "<%s> before <featureType>", p);
  } else if (!strcmp (p, "stages/_")) {   /* a stage, weak classifier or feature begins */
    fv_cascade_stage st = { 0, (int) s->weak->len, 0 };
    g_array_append_val (s->stages, st);
  } else if (!strcmp (p, "stages/_/weakClassifiers/_")) {
    fv_cascade_weak w = { (int) s->nodes->len, 0, (int) s->leaves->len, 0 };
    g_array_append_val (s->weak, w);
    g_array_index (s->stages, fv_cascade_stage, s->stages->len - 1).nweak++;
  } else if (!strcmp (p, "features/_")) {
    memset (&s->cur_feature, 0, sizeof s->cur_feature);
    s->cur_lbp_rect = 0;
    s->in_feature = 1;
  }
  g_free (p);
}

static void
on_text (GMarkupParseContext *ctx, const gchar *text, gsize len, gpointer user, GError **error)
{
  g_string_append_len (((parse_state *) user)->text, text, len);
}

/* The numbers of a text node; FALSE on anything that is not one. */
static gboolean
numbers (const char *text, GArray *out)
{
  const char *p = text;
  while (*p) {
    while (*p && g_ascii_isspace (*p))
      p++;
    if (!*p)
      break;
    char *end;
    double v = g_ascii_strtod (p, &end);
    if (end == p || (*end && !g_ascii_isspace (*end)))
      return FALSE;
    g_array_append_val (out, v);
    p = end;
  }
  return TRUE;
}

/* A whole number in [lo, hi]; anything else (NaN, inf, 1e10, 0.5) is not. */
static gboolean
to_int (double v, double lo, double hi, int64_t *out)
{
  if (!isfinite (v) || v != floor (v) || v < lo || v > hi)
    return FALSE;
  *out = (int64_t) v;
  return TRUE;
}

static gboolean
to_float (double v, float *out)
{
  if (!isfinite (v) || fabs (v) > FLT_MAX)
    return FALSE;
  *out = (float) v;
  return TRUE;
}

/* The single whole number of a text node, in [lo, hi]. */
static gboolean
one_int (const char *txt, int lo, int hi, int *out)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  int64_t x = 0;
  gboolean ok = numbers (txt, v) && v->len == 1 && to_int (g_array_index (v, double, 0), lo, hi, &x);
  g_array_free (v, TRUE);
  *out = (int) x;
  return ok;
}

static gboolean
one_float (const char *txt, float *out)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean ok = numbers (txt, v) && v->len == 1 && to_float (g_array_index (v, double, 0), out);
  g_array_free (v, TRUE);
  return ok;
}

/* <internalNodes>: per node left, right, feature, then a threshold (HAAR)
 * or eight subset words (LBP). */
static const char *
parse_nodes (parse_state *s, fv_cascade_weak *w, GArray *v)
{
  const int lbp = s->c->type == FV_FEATURE_LBP, per = lbp ? 3 + 8 : 4;
  if (w->nnodes)
    return "a second <internalNodes>";
  if (lbp != (s->c->max_cat_count > 0))
    return lbp ? "an LBP cascade needs <maxCatCount>256</maxCatCount> before its stages"
               : "a HAAR cascade with categorical features (<maxCatCount> not 0)";
  if (!v->len || v->len % per)
    return lbp ? "not a multiple of 11 numbers" : "not a multiple of 4 numbers";
  for (guint i = 0; i < v->len; i += per) {
    const double *d = &g_array_index (v, double, i);
    fv_cascade_node n = { 0 };
    int64_t l, r, f;
    if (!to_int (d[0], -MAX_INDEX, MAX_INDEX, &l) || !to_int (d[1], -MAX_INDEX, MAX_INDEX, &r))
      return "a child index that is not a whole number in range";
    if (!to_int (d[2], 0, MAX_INDEX, &f))
      return "a feature index that is not a whole number in range";
    n.left = (int) l;
    n.right = (int) r;
    n.feature = (int) f;
    if (!lbp && !to_float (d[3], &n.threshold))
      return "a threshold that is not a finite float";
    for (int k = 0; lbp && k < 8; k++) {
      int64_t word;
      if (!to_int (d[3 + k], INT32_MIN, UINT32_MAX, &word))
        return "a subset word that is not a 32-bit whole number";
      n.subset[k] = (int32_t) (uint32_t) word;
    }
    g_array_append_val (s->nodes, n);
    w->nnodes++;
  }
  return NULL;
}

static const char *
parse_leaves (parse_state *s, fv_cascade_weak *w, GArray *v)
{
  if (w->nleaves)
    return "a second <leafValues>";
  if (!v->len)
    return "no leaf values";
  for (guint i = 0; i < v->len; i++) {
    float f;
    if (!to_float (g_array_index (v, double, i), &f))
      return "a leaf value that is not a finite float";
    g_array_append_val (s->leaves, f);
    w->nleaves++;
  }
  return NULL;
}

/* A HAAR rectangle "x y w h weight" or an LBP block "x y w h"; the window
 * test is done once the window size is known, in fv_cascade_parse. */
static const char *
parse_rect (parse_state *s, GArray *v, int lbp)
{
  fv_cascade_feature *f = &s->cur_feature;
  if (lbp != (s->c->type == FV_FEATURE_LBP))
    return lbp ? "an LBP <rect> in a HAAR cascade" : "HAAR <rects> in an LBP cascade";
  if (v->len != (lbp ? 4u : 5u))
    return lbp ? "not 4 numbers" : "not 5 numbers";
  if (f->nrects >= (lbp ? 1 : 3))
    return lbp ? "more than one <rect>" : "more than 3 rectangles";
  int64_t q[4];
  for (int k = 0; k < 4; k++)
    if (!to_int (g_array_index (v, double, k), k < 2 ? 0 : 1, FV_CASCADE_MAX_WINDOW, &q[k]))
      return "a position or size that is not a whole number within the largest window";
  fv_cascade_rect *r = &f->rect[f->nrects];
  r->x = (int) q[0];
  r->y = (int) q[1];
  r->w = (int) q[2];
  r->h = (int) q[3];
  r->weight = 1.0f;
  if (!lbp && !to_float (g_array_index (v, double, 4), &r->weight))
    return "a weight that is not a finite float";
  f->nrects++;
  s->cur_lbp_rect = lbp;
  return NULL;
}

/* The leaf elements under <cascade>, by their path. */
static const char *
on_leaf (parse_state *s, const char *p, const char *txt, GArray *v)
{
  fv_cascade *c = s->c;
  if (!strcmp (p, "featureType")) {
    if (s->have_type)
      return "a second <featureType>";
    char *t = g_strstrip (g_strdup (txt));
    const char *why = NULL;
    if (!strcmp (t, "HAAR"))
      c->type = FV_FEATURE_HAAR;
    else if (!strcmp (t, "LBP"))
      c->type = FV_FEATURE_LBP;
    else
      why = "the feature type is not supported (HAAR and LBP are)";
    s->have_type = !why;
    g_free (t);
    return why;
  }
  if (!strcmp (p, "stageType"))
    return strstr (txt, "BOOST") ? NULL : "the stage type is not supported (BOOST is)";
  if (!strcmp (p, "width") || !strcmp (p, "height")) {
    int *dim = p[0] == 'w' ? &c->width : &c->height;
    return one_int (txt, 3, FV_CASCADE_MAX_WINDOW, dim) ? NULL
        : "the window size is not a whole number from 3 to 1024";
  }
  if (!strcmp (p, "stageNum"))
    return one_int (txt, 0, MAX_INDEX, &s->stage_num) ? NULL : "<stageNum> is not a count";
  if (!strcmp (p, "featureParams/maxCatCount")) {
    if (s->stages->len)
      return "<maxCatCount> after the stages";
    return one_int (txt, 0, 256, &c->max_cat_count)
        && (c->max_cat_count == 0 || c->max_cat_count == 256) ? NULL
        : "<maxCatCount> is neither 0 (HAAR) nor 256 (LBP)";
  }
  if (!strcmp (p, "stages/_/stageThreshold")) {
    fv_cascade_stage *st = &g_array_index (s->stages, fv_cascade_stage, s->stages->len - 1);
    return one_float (txt, &st->threshold) ? NULL : "the stage threshold is not a finite float";
  }
  gboolean nodes = !strcmp (p, "stages/_/weakClassifiers/_/internalNodes");
  if (nodes || !strcmp (p, "stages/_/weakClassifiers/_/leafValues")) {
    fv_cascade_weak *w = &g_array_index (s->weak, fv_cascade_weak, s->weak->len - 1);
    if (!numbers (txt, v))
      return "something that is not a number";
    return nodes ? parse_nodes (s, w, v) : parse_leaves (s, w, v);
  }
  gboolean haar_rect = !strcmp (p, "features/_/rects/_");
  if (haar_rect || !strcmp (p, "features/_/rect")) {
    if (!numbers (txt, v))
      return "something that is not a number";
    return parse_rect (s, v, !haar_rect);
  }
  if (!strcmp (p, "features/_/tilted")) {
    return one_int (txt, 0, 1, &s->cur_feature.tilted) ? NULL : "<tilted> is neither 0 nor 1";
  }
  if (!strcmp (p, "features/_")) {
    if (!s->cur_feature.nrects)
      return "a feature with no rectangle";
    if (s->cur_lbp_rect && s->cur_feature.tilted)
      return "a tilted LBP feature";
    g_array_append_val (s->features, s->cur_feature);
    s->in_feature = 0;
  }
  return NULL;
}

static void
on_end (GMarkupParseContext *ctx, const gchar *name, gpointer user, GError **error)
{
  parse_state *s = user;
  gchar *p = inner_path (s);
  if (p) {
    GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
    const char *why = on_leaf (s, p, s->text->str, v);
    if (why) {
      char *at = where (s, p);
      refuse (ctx, error, "<%s> of %s: %s", name, at, why);
      g_free (at);
    }
    g_array_free (v, TRUE);
    g_free (p);
  }
  if (!strcmp (name, "cascade") && s->path->len == 2)
    s->in_cascade = FALSE;
  g_free (g_ptr_array_steal_index (s->path, s->path->len - 1));
  g_string_truncate (s->text, 0);
}

/* A tree must end: children point forward within it, leaves exist. */
static const char *
tree_problem (const fv_cascade_weak *w, const fv_cascade_node *nodes, int nnodes, int nleaves)
{
  if (w->nnodes < 1 || w->nleaves != w->nnodes + 1 || w->first_node + w->nnodes > nnodes
      || w->first_leaf + w->nleaves > nleaves)
    return "its nodes and leaves do not match";
  for (int k = 0; k < w->nnodes; k++) {
    const fv_cascade_node *n = &nodes[w->first_node + k];
    const int child[2] = { n->left, n->right };   /* in +-MAX_INDEX: negating is safe */
    for (int j = 0; j < 2; j++)
      if ((child[j] > 0 && (child[j] <= k || child[j] >= w->nnodes))
          || (child[j] <= 0 && -child[j] >= w->nleaves))
        return "a node points outside its tree";
  }
  return NULL;
}

/* The rectangle, in 64 bits, lies inside the window. */
static gboolean
rect_inside (const fv_cascade *c, const fv_cascade_feature *f, const fv_cascade_rect *q)
{
  int64_t k = c->type == FV_FEATURE_LBP ? 3 : 1;
  int64_t x = q->x, y = q->y, w = k * q->w, h = k * q->h;
  if (x < 0 || y < 0 || w < 1 || h < 1)
    return FALSE;
  /* a tilted rectangle runs from (x, y) down-left by h and down-right by w */
  if (f->tilted)
    return x - h >= 0 && x + w <= c->width && y + w + h <= c->height;
  return x + w <= c->width && y + h <= c->height;
}

/* The checks that need the whole cascade; NULL when it is sound. */
static char *
whole_problem (const fv_cascade *c, int stage_num)
{
  if (!c->nstages || !c->nfeatures || !c->width || !c->height)
    return g_strdup ("no cascade in the opencv-cascade-classifier format found");
  if (stage_num && stage_num != c->nstages)
    return g_strdup_printf ("%d stages where <stageNum> says %d", c->nstages, stage_num);
  for (int i = 0; i < c->nstages; i++)
    if (c->stages[i].nweak < 1)
      return g_strdup_printf ("stage %d has no weak classifier", i);
  for (int i = 0; i < c->nnodes; i++)
    if (c->nodes[i].feature >= c->nfeatures)
      return g_strdup_printf ("a classifier uses feature %d of %d", c->nodes[i].feature,
          c->nfeatures);
  for (int i = 0; i < c->nweak; i++) {
    const char *why = tree_problem (&c->weak[i], c->nodes, c->nnodes, c->nleaves);
    if (why)
      return g_strdup_printf ("weak classifier %d: %s", i, why);
  }
  for (int i = 0; i < c->nfeatures; i++)
    for (int r = 0; r < c->features[i].nrects; r++)
      if (!rect_inside (c, &c->features[i], &c->features[i].rect[r]))
        return g_strdup_printf ("feature %d reaches outside the %dx%d window", i, c->width,
            c->height);
  return NULL;
}

fv_cascade *
fv_cascade_parse (const char *data, size_t len, const char *name)
{
  parse_state s = { 0 };
  GError *err = NULL;
  fv_cascade *c = calloc (1, sizeof *c);
  char *why = NULL;
  if (!c) {
    fv_set_last_error ("%s: out of memory", name);
    return NULL;
  }
  s.c = c;
  s.path = g_ptr_array_new_with_free_func (g_free);
  s.text = g_string_new (NULL);
  s.stages = g_array_new (FALSE, FALSE, sizeof (fv_cascade_stage));
  s.weak = g_array_new (FALSE, FALSE, sizeof (fv_cascade_weak));
  s.nodes = g_array_new (FALSE, FALSE, sizeof (fv_cascade_node));
  s.leaves = g_array_new (FALSE, FALSE, sizeof (float));
  s.features = g_array_new (FALSE, FALSE, sizeof (fv_cascade_feature));
  static const GMarkupParser parser = { on_start, on_end, on_text, NULL, NULL };
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, &s, NULL);
  gboolean parsed = g_markup_parse_context_parse (ctx, data, (gssize) len, &err)
      && g_markup_parse_context_end_parse (ctx, &err);
  g_markup_parse_context_free (ctx);
  c->nstages = s.stages->len;
  c->nweak = s.weak->len;
  c->nnodes = s.nodes->len;
  c->nleaves = s.leaves->len;
  c->nfeatures = s.features->len;
  c->stages = (fv_cascade_stage *) g_array_free (s.stages, FALSE);
  c->weak = (fv_cascade_weak *) g_array_free (s.weak, FALSE);
  c->nodes = (fv_cascade_node *) g_array_free (s.nodes, FALSE);
  c->leaves = (float *) g_array_free (s.leaves, FALSE);
  c->features = (fv_cascade_feature *) g_array_free (s.features, FALSE);
  if (!parsed)
    why = g_strdup (err->message);
  else
    why = whole_problem (c, s.stage_num);
  if (why) {
    fv_set_last_error ("%s: %s", name, why);
    fv_cascade_free (c);
    c = NULL;
  }
  g_free (why);
  if (err)
    g_error_free (err);
  g_ptr_array_free (s.path, TRUE);
  g_string_free (s.text, TRUE);
  return c;
}

fv_cascade *
fv_cascade_load (const char *path)
{
  char *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  if (!fv_file_read (path, "cascade", FV_CASCADE_MAX_FILE, &data, &len, &err)) {
    fv_set_last_error ("%s", err->message);
    g_error_free (err);
    return NULL;
  }
  gchar *name = g_filename_display_name (path);
  fv_cascade *c = fv_cascade_parse (data, len, name);
  g_free (name);
  g_free (data);
  return c;
}

void
fv_cascade_free (fv_cascade *c)
{
  if (!c)
    return;
  g_free (c->stages);
  g_free (c->weak);
  g_free (c->nodes);
  g_free (c->leaves);
  g_free (c->features);
  free (c);
}
