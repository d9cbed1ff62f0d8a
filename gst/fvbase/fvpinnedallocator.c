/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include <unistd.h>
#include "fvpinnedallocator.h"
#include "fv_cuda.h"
#include "fv_env.h"

typedef struct { GstAllocator parent; } FvPinnedAllocator;
typedef struct { GstAllocatorClass parent_class; } FvPinnedAllocatorClass;

GType fv_pinned_allocator_get_type (void);
G_DEFINE_TYPE (FvPinnedAllocator, fv_pinned_allocator, GST_TYPE_ALLOCATOR);

static GQuark pinned_quark;

/* Page-locked memory is scarce (the kernel cannot page it out): all pools
 * together stay under a budget, past which frames get ordinary memory. */
static gsize pinned_total;          /* bytes held, atomic */
static gchar *fallback_note;        /* why a frame got ordinary memory, once */

typedef struct {
  void *data;
  gsize size;
} Pinned;

static void
pinned_release (gpointer p)
{
  Pinned *pn = p;
  fv_cuda_host_free (pn->data);
  g_atomic_pointer_add (&pinned_total, -(gssize) pn->size);
  g_free (pn);
}

static guint64
pinned_budget (void)
{
  long long mb = fv_env_int (FV_ENV_MAX_PINNED_MB, 0);
  if (mb > 0 && mb < (1LL << 40))
    return (guint64) mb << 20;
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (guint64) pages * (guint64) page / 4 : (guint64) 1 << 30;
}

static void
note_fallback (gsize size, const char *why)
{
  gchar *note = g_strdup_printf ("a %" G_GSIZE_FORMAT " MB frame buffer is in ordinary "
      "(pageable) memory: %s; copies to and from the GPU are slower "
      "(FASTVISION_MAX_PINNED_MB sets the budget)", size >> 20, why);
  if (!g_atomic_pointer_compare_and_exchange (&fallback_note, NULL, note))
    g_free (note);
}

const gchar *
fv_pinned_fallback_note (void)
{
  return g_atomic_pointer_get (&fallback_note);
}

static GstMemory *
fv_pinned_alloc (GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
  gsize align = params->align | 63;   /* at least 64-byte aligned */
  gsize maxsize = size + params->prefix + params->padding + align;
  const guint64 budget = pinned_budget ();
  if (g_atomic_pointer_add (&pinned_total, maxsize) + maxsize > budget) {
    g_atomic_pointer_add (&pinned_total, -(gssize) maxsize);
    gchar *why = g_strdup_printf ("page-locked buffers would pass their budget of %"
        G_GUINT64_FORMAT " MB", budget >> 20);
    note_fallback (maxsize, why);
    g_free (why);
    return gst_allocator_alloc (NULL, size, params);
  }
  guint8 *data = fv_cuda_host_alloc (maxsize);
  if (!data) {   /* no GPU after all, or the system refuses: ordinary memory still works */
    g_atomic_pointer_add (&pinned_total, -(gssize) maxsize);
    if (fv_cuda_device_count () > 0)
      note_fallback (maxsize, "the system refused to page-lock it");
    return gst_allocator_alloc (NULL, size, params);
  }
  gsize offset = ((guintptr) data + align) & ~align;
  offset -= (guintptr) data;
  Pinned *pn = g_new (Pinned, 1);
  pn->data = data;
  pn->size = maxsize;
  GstMemory *mem = gst_memory_new_wrapped (params->flags,
      data, maxsize, offset + params->prefix, size, pn, pinned_release);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), pinned_quark, GINT_TO_POINTER (1), NULL);
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED) && params->prefix)
    memset (data + offset, 0, params->prefix);
  return mem;
}

static void
fv_pinned_free (GstAllocator *allocator, GstMemory *mem)
{
  /* wrapped memories are freed by their own allocator */
  g_assert_not_reached ();
}

static void
fv_pinned_allocator_class_init (FvPinnedAllocatorClass *klass)
{
  GstAllocatorClass *ac = GST_ALLOCATOR_CLASS (klass);
  ac->alloc = fv_pinned_alloc;
  ac->free = fv_pinned_free;
  pinned_quark = g_quark_from_static_string ("fv-pinned-memory");
}

static void
fv_pinned_allocator_init (FvPinnedAllocator *self)
{
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
fv_pinned_allocator_get (void)
{
  static GstAllocator *the_one = NULL;
  if (g_once_init_enter (&the_one)) {
    GstAllocator *a = g_object_new (fv_pinned_allocator_get_type (), NULL);
    gst_object_ref_sink (a);
    GST_OBJECT_FLAG_SET (a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    gst_allocator_register (FV_PINNED_ALLOCATOR_NAME, gst_object_ref (a));
    g_once_init_leave (&the_one, a);
  }
  return gst_object_ref (the_one);
}

gboolean
fv_memory_is_pinned (GstMemory *mem)
{
  return gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), pinned_quark) != NULL;
}

GstBufferPool *
fv_pinned_pool_new (GstCaps *caps, guint min_buffers)
{
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return NULL;
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *alloc = fv_pinned_allocator_get ();
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  params.align = 63;
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info), min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, alloc, &params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_object_unref (alloc);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

static void
set_first_param (GstQuery *query)
{
  GstAllocator *alloc = fv_pinned_allocator_get ();
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  params.align = 63;
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_set_nth_allocation_param (query, 0, alloc, &params);
  else
    gst_query_add_allocation_param (query, alloc, &params);
  gst_object_unref (alloc);
}

void
fv_pinned_propose_allocation (GstQuery *query)
{
  GstCaps *caps;
  gboolean need_pool;
  GstVideoInfo info;
  gst_query_parse_allocation (query, &caps, &need_pool);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!need_pool || !caps || !gst_video_info_from_caps (&info, caps))
    return;
  GstBufferPool *pool = fv_pinned_pool_new (caps, 2);
  if (!pool)
    return;
  set_first_param (query);
  gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info), 2, 0);
  gst_object_unref (pool);
}

void
fv_pinned_decide_allocation (GstQuery *query)
{
  GstCaps *caps;
  GstVideoInfo info;
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return;
  GstBufferPool *pool = fv_pinned_pool_new (caps, 2);
  if (!pool)
    return;
  /* the base class configures the first pool with the first allocator */
  set_first_param (query);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, GST_VIDEO_INFO_SIZE (&info), 2, 0);
  else
    gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info), 2, 0);
  gst_object_unref (pool);
}
