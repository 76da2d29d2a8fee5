/* nodescale_version: the library's version, from the macros of include/nodescale.h. */
#include "nodescale.h"

#define NS_STR_(x) #x
#define NS_STR(x) NS_STR_(x)

const char *nodescale_version(void) {
    return NS_STR(NODESCALE_VERSION_MAJOR) "." NS_STR(NODESCALE_VERSION_MINOR) "." NS_STR(
        NODESCALE_VERSION_PATCH);
}
