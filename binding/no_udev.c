/* `bind` links hwloc statically so that it needs nothing beyond glibc inside a foreign image (NVIDIA's
 * containers carry neither our hwloc nor libudev). hwloc calls libudev only to read properties of block
 * devices during I/O discovery, never for CPU or memory binding, and treats udev_new() == NULL as "no
 * udev" (its fsroot mode: it then reads /run/udev/data itself). These definitions give it that answer. */
#include <stddef.h>

struct udev;
struct udev_device;

struct udev* udev_new(void) { return NULL; }
struct udev* udev_unref(struct udev* u) { (void)u; return NULL; }
struct udev_device* udev_device_new_from_subsystem_sysname(struct udev* u, const char* subsystem, const char* sysname) {
  (void)u; (void)subsystem; (void)sysname;
  return NULL;
}
const char* udev_device_get_property_value(struct udev_device* d, const char* key) { (void)d; (void)key; return NULL; }
struct udev_device* udev_device_unref(struct udev_device* d) { (void)d; return NULL; }
