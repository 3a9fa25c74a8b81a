import ultralytics
from ultralytics import YOLO

ultralytics.checks()

model = YOLO("yolov8n-seg.pt")
model.train(data='./good_pointer/data.yaml', epochs=100, imgsz=1280,device=[1,2,3,4],
            project="./",name="MeterSeg")
