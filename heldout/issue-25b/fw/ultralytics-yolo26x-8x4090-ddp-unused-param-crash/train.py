from ultralytics import YOLO

model = YOLO("yolo26x.pt")
model.train(
    data="your_dataset.yaml",
    device="0,1,2,3,4,5,6,7",
    epochs=100,
    batch=16,
)
