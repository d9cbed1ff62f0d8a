/* The cascade parser: GMarkup walks the XML, a small state machine keeps
 * where it is (which stage, weak classifier or feature) and collects the
 * text of the leaf elements it needs. */
#include <glib.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fv_cascade.h"

typedef struct {
  GPtrArray *path;          /* element names from the root */
  GString *text;
  fv_cascade *c;
  int stage_num;
  GArray *stages, *weak, *nodes, *leaves, *features;
  fv_cascade_feature cur_feature;
  gboolean in_cascade, old_format;
  const char *file;
} parse_state;

static const char *
at (parse_state *s, int from_end)
{
  int n = (int) s->path->len - 1 - from_end;
  return n >= 0 ? g_ptr_array_index (s->path, n) : "";
}

static gboolean
path_is (parse_state *s, const char *a, const char *b)
{
  return !strcmp (at (s, 0), a) && (!b || !strcmp (at (s, 1), b));
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
  /* <cascade> under the root, with or without type_id="opencv-cascade-classifier" */
  if (!strcmp (name, "cascade") && !strcmp (at (s, 1), "opencv_storage"))
    s->in_cascade = TRUE;
  if (s->old_format) {
    g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
        "the old opencv-haar-classifier format is not supported: use a cascade in the "
        "opencv-cascade-classifier format (opencv_traincascade, or OpenCV's converter)");
    return;
  }
  if (!s->in_cascade)
    return;
  /* a stage, a weak classifier or a feature begins */
  if (!strcmp (name, "_") && !strcmp (at (s, 1), "stages")) {
    fv_cascade_stage st = { 0, (int) s->weak->len, 0 };
    g_array_append_val (s->stages, st);
  } else if (!strcmp (name, "_") && !strcmp (at (s, 1), "weakClassifiers")) {
    fv_cascade_weak w = { (int) s->nodes->len, 0, (int) s->leaves->len, 0 };
    g_array_append_val (s->weak, w);
    g_array_index (s->stages, fv_cascade_stage, s->stages->len - 1).nweak++;
  } else if (!strcmp (name, "_") && !strcmp (at (s, 1), "features")) {
    memset (&s->cur_feature, 0, sizeof s->cur_feature);
  }
}

static void
on_text (GMarkupParseContext *ctx, const gchar *text, gsize len, gpointer user, GError **error)
{
  g_string_append_len (((parse_state *) user)->text, text, len);
}

/* Numbers of a text node; FALSE on anything that is not one. */
static gboolean
numbers (const char *text, GArray *out, gboolean integers)
{
  const char *p = text;
  while (*p) {
    while (*p && g_ascii_isspace (*p))
      p++;
    if (!*p)
      break;
    char *end;
    double v = integers ? (double) g_ascii_strtoll (p, &end, 10) : g_ascii_strtod (p, &end);
    if (end == p)
      return FALSE;
    g_array_append_val (out, v);
    p = end;
  }
  return TRUE;
}

static void
on_end (GMarkupParseContext *ctx, const gchar *name, gpointer user, GError **error)
{
  parse_state *s = user;
  fv_cascade *c = s->c;
  const char *txt = s->text->str;
  GArray *v = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean ok = TRUE;
  if (s->in_cascade) {
    if (path_is (s, "featureType", "cascade")) {
      char *t = g_strstrip (g_strdup (txt));
      if (!strcmp (t, "HAAR"))
        c->type = FV_FEATURE_HAAR;
      else if (!strcmp (t, "LBP"))
        c->type = FV_FEATURE_LBP;
      else
        g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
            "feature type \"%s\" is not supported (HAAR and LBP are)", t);
      g_free (t);
    } else if (path_is (s, "stageType", "cascade")) {
      if (!strstr (txt, "BOOST"))
        g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
            "stage type \"%s\" is not supported (BOOST is)", g_strstrip (s->text->str));
    } else if (path_is (s, "width", "cascade")) {
      c->width = atoi (txt);
    } else if (path_is (s, "height", "cascade")) {
      c->height = atoi (txt);
    } else if (path_is (s, "stageNum", "cascade")) {
      s->stage_num = atoi (txt);
    } else if (path_is (s, "maxCatCount", "featureParams")) {
      c->max_cat_count = atoi (txt);
    } else if (path_is (s, "stageThreshold", "_") && s->stages->len) {
      g_array_index (s->stages, fv_cascade_stage, s->stages->len - 1).threshold =
          (float) g_ascii_strtod (txt, NULL);
    } else if (path_is (s, "internalNodes", "_") && s->weak->len) {
      fv_cascade_weak *w = &g_array_index (s->weak, fv_cascade_weak, s->weak->len - 1);
      const int per = c->max_cat_count > 0 ? 3 + 8 : 4;
      ok = numbers (txt, v, c->max_cat_count > 0) && v->len && v->len % per == 0;
      for (guint i = 0; ok && i < v->len; i += per) {
        fv_cascade_node n = { 0 };
        n.left = (int) g_array_index (v, double, i);
        n.right = (int) g_array_index (v, double, i + 1);
        n.feature = (int) g_array_index (v, double, i + 2);
        if (per == 4)
          n.threshold = (float) g_array_index (v, double, i + 3);
        else
          for (int k = 0; k < 8; k++)
            n.subset[k] = (int32_t) (int64_t) g_array_index (v, double, i + 3 + k);
        g_array_append_val (s->nodes, n);
        w->nnodes++;
      }
    } else if (path_is (s, "leafValues", "_") && s->weak->len) {
      fv_cascade_weak *w = &g_array_index (s->weak, fv_cascade_weak, s->weak->len - 1);
      ok = numbers (txt, v, FALSE) && v->len;
      for (guint i = 0; ok && i < v->len; i++) {
        float f = (float) g_array_index (v, double, i);
        g_array_append_val (s->leaves, f);
        w->nleaves++;
      }
    } else if (!strcmp (name, "_") && !strcmp (at (s, 1), "rects")) {   /* HAAR rectangle */
      ok = numbers (txt, v, FALSE) && v->len == 5 && s->cur_feature.nrects < 3;
      if (ok) {
        fv_cascade_rect *r = &s->cur_feature.rect[s->cur_feature.nrects++];
        r->x = (int) g_array_index (v, double, 0);
        r->y = (int) g_array_index (v, double, 1);
        r->w = (int) g_array_index (v, double, 2);
        r->h = (int) g_array_index (v, double, 3);
        r->weight = (float) g_array_index (v, double, 4);
      }
    } else if (path_is (s, "rect", "_")) {   /* LBP block grid */
      ok = numbers (txt, v, TRUE) && v->len == 4;
      if (ok) {
        fv_cascade_rect *r = &s->cur_feature.rect[0];
        r->x = (int) g_array_index (v, double, 0);
        r->y = (int) g_array_index (v, double, 1);
        r->w = (int) g_array_index (v, double, 2);
        r->h = (int) g_array_index (v, double, 3);
        r->weight = 1.0f;
        s->cur_feature.nrects = 1;
      }
    } else if (path_is (s, "tilted", "_")) {
      s->cur_feature.tilted = atoi (txt) != 0;
    } else if (!strcmp (name, "_") && !strcmp (at (s, 1), "features")) {
      g_array_append_val (s->features, s->cur_feature);
    }
    if (!ok && !*error) {
      int line, col;
      g_markup_parse_context_get_position (ctx, &line, &col);
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
          "line %d: malformed <%s>", line, name);
    }
  }
  if (!strcmp (name, "cascade"))
    s->in_cascade = FALSE;
  g_array_free (v, TRUE);
  g_free (g_ptr_array_steal_index (s->path, s->path->len - 1));
  g_string_truncate (s->text, 0);
}

static fv_cascade *
fail (parse_state *s, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fv_set_last_error ("%s: %s", s->file, why);
  g_free (why);
  return NULL;
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
    const int child[2] = { n->left, n->right };
    for (int j = 0; j < 2; j++)
      if ((child[j] > 0 && (child[j] <= k || child[j] >= w->nnodes))
          || (child[j] <= 0 && -child[j] >= w->nleaves))
        return "a node points outside its tree";
  }
  return NULL;
}

fv_cascade *
fv_cascade_load (const char *path)
{
  parse_state s = { 0 };
  char *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  fv_cascade *c = calloc (1, sizeof *c), *result = NULL;
  s.file = path;
  s.c = c;
  s.path = g_ptr_array_new_with_free_func (g_free);
  s.text = g_string_new (NULL);
  s.stages = g_array_new (FALSE, FALSE, sizeof (fv_cascade_stage));
  s.weak = g_array_new (FALSE, FALSE, sizeof (fv_cascade_weak));
  s.nodes = g_array_new (FALSE, FALSE, sizeof (fv_cascade_node));
  s.leaves = g_array_new (FALSE, FALSE, sizeof (float));
  s.features = g_array_new (FALSE, FALSE, sizeof (fv_cascade_feature));
  static const GMarkupParser parser = { on_start, on_end, on_text, NULL, NULL };
  if (!g_file_get_contents (path, &data, &len, &err)) {
    fail (&s, "%s", err->message);
    goto out;
  }
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, &s, NULL);
  gboolean parsed = g_markup_parse_context_parse (ctx, data, len, &err)
      && g_markup_parse_context_end_parse (ctx, &err);
  g_markup_parse_context_free (ctx);
  if (!parsed) {
    fail (&s, "%s", err->message);
    goto out;
  }
  c->nstages = s.stages->len;
  c->nweak = s.weak->len;
  c->nnodes = s.nodes->len;
  c->nleaves = s.leaves->len;
  c->nfeatures = s.features->len;
  if (c->width < 1 || c->height < 1 || !c->nstages || !c->nfeatures) {
    fail (&s, "no cascade in the opencv-cascade-classifier format found");
    goto out;
  }
  if (s.stage_num && s.stage_num != c->nstages) {
    fail (&s, "%d stages where <stageNum> says %d", c->nstages, s.stage_num);
    goto out;
  }
  for (int i = 0; i < c->nnodes; i++) {
    fv_cascade_node *n = &g_array_index (s.nodes, fv_cascade_node, i);
    if (n->feature < 0 || n->feature >= c->nfeatures) {
      fail (&s, "a classifier uses feature %d of %d", n->feature, c->nfeatures);
      goto out;
    }
  }
  for (int i = 0; i < c->nweak; i++) {
    const char *why = tree_problem (&g_array_index (s.weak, fv_cascade_weak, i),
        (fv_cascade_node *) s.nodes->data, c->nnodes, c->nleaves);
    if (why) {
      fail (&s, "weak classifier %d: %s", i, why);
      goto out;
    }
  }
  for (int i = 0; i < c->nfeatures; i++) {
    fv_cascade_feature *f = &g_array_index (s.features, fv_cascade_feature, i);
    for (int r = 0; r < f->nrects; r++) {
      const fv_cascade_rect *q = &f->rect[r];
      int w = c->type == FV_FEATURE_LBP ? 3 * q->w : q->w, h = c->type == FV_FEATURE_LBP ? 3 * q->h : q->h;
      /* a tilted rectangle runs from (x, y) down-left by h and down-right by w */
      int outside = f->tilted ? q->x - h < 0 || q->x + w > c->width || q->y + w + h > c->height
          : q->x + w > c->width || q->y + h > c->height;
      if (q->x < 0 || q->y < 0 || w < 1 || h < 1 || outside) {
        fail (&s, "feature %d reaches outside the %dx%d window", i, c->width, c->height);
        goto out;
      }
    }
    if (!f->nrects) {
      fail (&s, "feature %d has no rectangle", i);
      goto out;
    }
  }
  c->stages = (fv_cascade_stage *) g_array_steal (s.stages, NULL);
  c->weak = (fv_cascade_weak *) g_array_steal (s.weak, NULL);
  c->nodes = (fv_cascade_node *) g_array_steal (s.nodes, NULL);
  c->leaves = (float *) g_array_steal (s.leaves, NULL);
  c->features = (fv_cascade_feature *) g_array_steal (s.features, NULL);
  result = c;
  c = NULL;
out:
  if (err)
    g_error_free (err);
  g_free (data);
  g_ptr_array_free (s.path, TRUE);
  g_string_free (s.text, TRUE);
  g_array_free (s.stages, TRUE);
  g_array_free (s.weak, TRUE);
  g_array_free (s.nodes, TRUE);
  g_array_free (s.leaves, TRUE);
  g_array_free (s.features, TRUE);
  fv_cascade_free (c);
  return result;
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
