/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <glib/gstdio.h>
#include "fvcascades.h"

typedef struct {
  gchar *path;
  GStatBuf st;           /* the file as it was parsed */
  fv_cascade *cascade;
  guint refs;
} Entry;

static GMutex lock;
static GHashTable *by_path;      /* path -> the newest Entry of that file */
static GHashTable *by_cascade;   /* fv_cascade * -> Entry, every one held */

static gboolean
same_file (const GStatBuf *a, const GStatBuf *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size
      && a->st_mtime == b->st_mtime
#ifdef __linux__
      && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
#endif
      ;
}

const fv_cascade *
fv_cascades_get (const gchar *path)
{
  GStatBuf st;
  const gboolean have_st = g_stat (path, &st) == 0;
  g_mutex_lock (&lock);
  if (!by_path) {
    by_path = g_hash_table_new (g_str_hash, g_str_equal);
    by_cascade = g_hash_table_new (NULL, NULL);
  }
  Entry *e = have_st ? g_hash_table_lookup (by_path, path) : NULL;
  if (e && same_file (&e->st, &st)) {
    e->refs++;
    g_mutex_unlock (&lock);
    return e->cascade;
  }
  g_mutex_unlock (&lock);
  /* parsed outside the lock: another file's parse need not wait */
  fv_cascade *c = fv_cascade_load (path);
  if (!c)
    return NULL;
  g_mutex_lock (&lock);
  Entry *n = g_new0 (Entry, 1);
  n->path = g_strdup (path);
  n->cascade = c;
  n->refs = 1;
  if (have_st) {   /* a file that cannot be stat'ed is not shared */
    n->st = st;
    Entry *old = g_hash_table_lookup (by_path, path);
    if (old)   /* stays held by its users, no longer handed out */
      g_hash_table_remove (by_path, path);
    g_hash_table_insert (by_path, n->path, n);
  }
  g_hash_table_insert (by_cascade, c, n);
  g_mutex_unlock (&lock);
  return c;
}

void
fv_cascades_put (const fv_cascade *cascade)
{
  if (!cascade)
    return;
  g_mutex_lock (&lock);
  Entry *e = by_cascade ? g_hash_table_lookup (by_cascade, cascade) : NULL;
  if (!e || --e->refs > 0) {
    g_mutex_unlock (&lock);
    g_return_if_fail (e != NULL);
    return;
  }
  g_hash_table_remove (by_cascade, cascade);
  if (g_hash_table_lookup (by_path, e->path) == e)
    g_hash_table_remove (by_path, e->path);
  g_mutex_unlock (&lock);
  fv_cascade_free (e->cascade);
  g_free (e->path);
  g_free (e);
}
