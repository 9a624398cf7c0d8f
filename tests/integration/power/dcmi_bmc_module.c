/* A module for OpenIPMI's BMC simulator (ipmi_sim `loadlib "dcmi_bmc_module.so" "watts=N"`) that answers
 * DCMI's Get Power Reading (NetFn 0x2C, group extension 0xDC, command 0x02; DCMI 1.5 section 6.6.1), the
 * command NVIDIA's power_monitor.sh sends through `ipmitool dcmi power reading`. ipmi_sim itself answers
 * no DCMI command. The node's power is N watts for every reading (current, minimum, maximum, average);
 * any other DCMI command gets "invalid command", a request too short "request data length invalid". */
#include <OpenIPMI/ipmi_err.h>
#include <OpenIPMI/mcserv.h>
#include <OpenIPMI/serv.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DCMI_GROUP 0xdc
#define DCMI_GET_POWER_READING 0x02

static unsigned int watts;

static void put16(unsigned char* p, unsigned int v) {
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
}

static void put32(unsigned char* p, uint32_t v) {
  put16(p, v & 0xffff);
  put16(p + 2, v >> 16);
}

static void dcmi_handler(lmc_data_t* mc, msg_t* msg, unsigned char* rdata, unsigned int* rdata_len, void* cb_data) {
  (void)mc;
  (void)cb_data;
  if (msg->cmd != DCMI_GET_POWER_READING) {
    rdata[0] = IPMI_INVALID_CMD_CC;
    *rdata_len = 1;
    return;
  }
  if (msg->len < 4) { /* group id, mode, mode attributes, reserved */
    rdata[0] = IPMI_REQUEST_DATA_LENGTH_INVALID_CC;
    *rdata_len = 1;
    return;
  }
  rdata[0] = 0; /* completion code */
  rdata[1] = DCMI_GROUP;
  put16(rdata + 2, watts); /* current */
  put16(rdata + 4, watts); /* minimum over the statistics period */
  put16(rdata + 6, watts); /* maximum */
  put16(rdata + 8, watts); /* average */
  put32(rdata + 10, (uint32_t)time(NULL));
  put32(rdata + 14, 1000); /* the statistics period, ms */
  rdata[18] = 0x40;        /* power measurement active */
  *rdata_len = 19;
}

int ipmi_sim_module_init(sys_data_t* sys, const char* initstr) {
  (void)sys;
  char* end = NULL;
  if (!initstr || strncmp(initstr, "watts=", 6) != 0) {
    fprintf(stderr, "dcmi_bmc_module: options must be \"watts=N\"\n");
    return EINVAL;
  }
  const unsigned long w = strtoul(initstr + 6, &end, 10);
  if (*end != '\0' || w > 0xffff) {
    fprintf(stderr, "dcmi_bmc_module: watts must be a whole number of at most 65535\n");
    return EINVAL;
  }
  watts = (unsigned int)w;
  ipmi_emu_register_group_extension_handler(DCMI_GROUP, dcmi_handler, NULL);
  return 0;
}
