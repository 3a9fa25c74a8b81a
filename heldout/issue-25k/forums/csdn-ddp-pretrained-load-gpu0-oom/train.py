# 原来代码,load进的数据放在gpu里
# pretrain_weight = torch.load(path)['model']
