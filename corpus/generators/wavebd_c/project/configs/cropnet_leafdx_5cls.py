# CropNet on the field-scout leaf patches, 5 disease classes, 2 processes (gloo, CPU)
custom_imports = dict(imports=["cropdx"], allow_failed_imports=False)

default_scope = None
data_root = "data/leaves/"
train_pipeline = [dict(type="LoadLeafPatch"), dict(type="RandomFlipLeaf", prob=0.5), dict(type="PackLeafInputs")]
test_pipeline = [dict(type="LoadLeafPatch"), dict(type="PackLeafInputs")]

model = dict(type="CropNet", num_classes=5, width=32, depth=2)
# CPU DDP: no device_ids (the default wrapper passes device_ids=[LOCAL_RANK], which only works for GPU modules)
model_wrapper_cfg = dict(type="MMDistributedDataParallel", device_ids=None, broadcast_buffers=False)

train_dataloader = dict(
    batch_size=16,
    num_workers=0,
    persistent_workers=False,
    sampler=dict(type="DefaultSampler", shuffle=True),
    collate_fn=dict(type="default_collate"),
    dataset=dict(type="LeafPatchDataset", data_root=data_root, ann_file="train.json", img_shard="train_images.npy", data_prefix=dict(),
                 pipeline=train_pipeline),
)
val_dataloader = dict(
    batch_size=32,
    num_workers=0,
    persistent_workers=False,
    sampler=dict(type="DefaultSampler", shuffle=False),
    collate_fn=dict(type="default_collate"),
    dataset=dict(type="LeafPatchDataset", data_root=data_root, ann_file="val.json", img_shard="val_images.npy", data_prefix=dict(),
                 pipeline=test_pipeline),
)
val_evaluator = dict(type="DiseaseAccuracy")

train_cfg = dict(by_epoch=True, max_epochs=3, val_interval=1)
val_cfg = dict()

optim_wrapper = dict(optimizer=dict(type="SGD", lr=0.05, momentum=0.9, weight_decay=1e-4))
param_scheduler = [dict(type="MultiStepLR", by_epoch=True, milestones=[2], gamma=0.1)]

default_hooks = dict(
    timer=dict(type="IterTimerHook"),
    logger=dict(type="LoggerHook", interval=5),
    param_scheduler=dict(type="ParamSchedulerHook"),
    checkpoint=dict(type="CheckpointHook", interval=1, max_keep_ckpts=2, save_best="leaf/accuracy", rule="greater"),
    sampler_seed=dict(type="DistSamplerSeedHook"),
)
custom_hooks = [dict(type="FieldPaceHook", step_delay=0.25), dict(type="CheckInvalidLossHook", interval=1)]

env_cfg = dict(
    cudnn_benchmark=False,
    mp_cfg=dict(mp_start_method="fork", opencv_num_threads=0),
    dist_cfg=dict(backend="gloo", timeout=1800),
    cpu_dist_init=True,  # tools/train.py creates the gloo group itself on a CPU-only torch build
)
randomness = dict(seed=42)
log_processor = dict(window_size=5, by_epoch=True)
log_level = "INFO"
load_from = None
resume = False
