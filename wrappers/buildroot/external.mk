include $(sort $(wildcard $(BR2_EXTERNAL_CUDA_XCC_PATH)/package/*/*.mk))
